// storeUsageBatch: one statement per batch, each idempotency id stored once, every column as sent.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { UsageRecord } from '../../../src/domain/usage-record.ts';
import { storeUsageBatch } from '../../../src/services/usage/store-usage.ts';
import { createTestDatabase, type TestDatabase } from '../../support/db.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

const ORG = '0b6f3c1e-3a53-4c8e-9a57-0d5f0f6f7a11';
const WS = '5c1c6f0e-1c7b-4f53-8a55-9d0e3c2b1a22';
const KEY = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c33';

const record = (id: string, over: Partial<UsageRecord> = {}): UsageRecord => ({
  idempotency_id: `${id}:0`, request_id: id, attempt: 0, trace_id: `trace-${id}`, organisation_id: ORG, workspace_id: WS,
  api_key_id: KEY, provider: 'openai', model: 'gpt-4o-mini', endpoint: 'chat.completions', method: 'POST', status: 200,
  started_at_ms: Date.UTC(2026, 10, 22, 12, 0, 0, 123), latency_ms: 12, upstream_latency_ms: 10, prompt_tokens: 3,
  completion_tokens: 4, total_tokens: 7, is_stream: false, error_code: '', metadata_json: '', ...over,
});

const rows = (ids: string[]) =>
  db.orm.em.getConnection().execute<Record<string, unknown>[]>(
    `select idempotency_id, request_id, attempt, trace_id, organisation_id, workspace_id, api_key_id, provider, model, endpoint, method,
            status, latency_ms, upstream_latency_ms, prompt_tokens, completion_tokens, total_tokens, is_stream, error_code, metadata,
            (extract(epoch from started_at) * 1000)::float8 as started_at_ms from request_log where request_id in (${ids.map(() => '?').join(',')}) order by request_id`,
    ids,
  );

describe('storeUsageBatch', () => {
  it('stores every field as sent, including text that looks like SQL or placeholders', async () => {
    const tricky = `it's a "?" and $1 -- ; drop table request_log; ✓ 🎉 \\ \n`;
    const ack = await storeUsageBatch(db.orm.em.fork(), {
      batch_id: 'b1',
      records: [
        record('a1', { metadata_json: JSON.stringify({ team: tricky, nested: { n: 1, list: [true, null] } }), trace_id: tricky, is_stream: true, error_code: 'upstream_error', status: 502 }),
        record('a2', { workspace_id: '', api_key_id: 'not-a-uuid', model: '', metadata_json: '[1,2]' }),
      ],
    });
    expect(ack).toEqual({ batch_id: 'b1', stored: 2, duplicates: 0, rejected: 0 });
    expect(await rows(['a1', 'a2'])).toEqual([
      {
        idempotency_id: 'a1:0', request_id: 'a1', attempt: 0, trace_id: tricky, organisation_id: ORG, workspace_id: WS, api_key_id: KEY,
        provider: 'openai', model: 'gpt-4o-mini', endpoint: 'chat.completions', method: 'POST', status: 502, latency_ms: 12,
        upstream_latency_ms: 10, prompt_tokens: 3, completion_tokens: 4, total_tokens: 7, is_stream: true, error_code: 'upstream_error',
        metadata: { team: tricky, nested: { n: 1, list: [true, null] } }, started_at_ms: Date.UTC(2026, 10, 22, 12, 0, 0, 123),
      },
      {
        idempotency_id: 'a2:0', request_id: 'a2', attempt: 0, trace_id: 'trace-a2', organisation_id: ORG, workspace_id: null, api_key_id: null,
        provider: 'openai', model: null, endpoint: 'chat.completions', method: 'POST', status: 200, latency_ms: 12,
        upstream_latency_ms: 10, prompt_tokens: 3, completion_tokens: 4, total_tokens: 7, is_stream: false, error_code: null,
        metadata: null, started_at_ms: Date.UTC(2026, 10, 22, 12, 0, 0, 123),
      },
    ]);
  });

  it('stores each idempotency id once: within a batch, across resends, and counts the rest as duplicates', async () => {
    const b = { batch_id: 'b2', records: [record('d1'), record('d2'), record('d1', { total_tokens: 99 })] };
    expect(await storeUsageBatch(db.orm.em.fork(), b)).toEqual({ batch_id: 'b2', stored: 2, duplicates: 1, rejected: 0 });
    expect(await storeUsageBatch(db.orm.em.fork(), b)).toEqual({ batch_id: 'b2', stored: 0, duplicates: 3, rejected: 0 });
    const again = { batch_id: 'b3', records: [record('d2'), record('d3'), record('d3', { attempt: 1, idempotency_id: 'd3:1' })] };
    expect(await storeUsageBatch(db.orm.em.fork(), again)).toEqual({ batch_id: 'b3', stored: 2, duplicates: 1, rejected: 0 });
    const stored = await db.orm.em.getConnection().execute("select idempotency_id, total_tokens from request_log where request_id like 'd%' order by idempotency_id");
    expect(stored).toEqual([
      { idempotency_id: 'd1:0', total_tokens: 7 },
      { idempotency_id: 'd2:0', total_tokens: 7 },
      { idempotency_id: 'd3:0', total_tokens: 7 },
      { idempotency_id: 'd3:1', total_tokens: 7 },
    ]);
  });

  it('rejects records without an idempotency id or organisation and stores the rest; truncates over-long text', async () => {
    const ack = await storeUsageBatch(db.orm.em.fork(), {
      batch_id: 'b4',
      records: [record('r1', { idempotency_id: '' }), record('r2', { organisation_id: 'nope' }), record('r3', { provider: 'p'.repeat(100), trace_id: 't'.repeat(300) })],
    });
    expect(ack).toEqual({ batch_id: 'b4', stored: 1, duplicates: 0, rejected: 2 });
    const [row] = await rows(['r1', 'r2', 'r3']);
    expect(row).toMatchObject({ request_id: 'r3', provider: 'p'.repeat(64), trace_id: 't'.repeat(255) });
    expect(await storeUsageBatch(db.orm.em.fork(), { batch_id: 'b5', records: [] })).toEqual({ batch_id: 'b5', stored: 0, duplicates: 0, rejected: 0 });
  });

  it('stores a large batch in one go', async () => {
    const records = Array.from({ length: 2_000 }, (_, i) => record(`big-${String(i).padStart(4, '0')}`));
    expect(await storeUsageBatch(db.orm.em.fork(), { batch_id: 'big', records })).toEqual({ batch_id: 'big', stored: 2_000, duplicates: 0, rejected: 0 });
    const [count] = await db.orm.em.getConnection().execute<{ n: number }[]>("select count(*)::int as n from request_log where request_id like 'big-%'");
    expect(count?.n).toBe(2_000);
  });
});
