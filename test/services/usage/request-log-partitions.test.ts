// The partitioned request log (migration 0011): monthly partitions made on demand and ahead,
// idempotency across resends still holding, retention dropping whole months, and the new
// log fields (bodies capped, sensitive headers hashed, denied fields dropped) as stored.
import { createHash } from 'node:crypto';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { UsageRecord } from '../../../src/domain/usage-record.ts';
import { storeUsageBatch } from '../../../src/services/usage/store-usage.ts';
import { maintainRequestLogs } from '../../../src/services/request-logs/log-maintenance.ts';
import { DEFAULT_LOG_BODY_MAX_BYTES } from '../../../src/services/request-logs/log-shaping.ts';
import { createTestDatabase, type TestDatabase } from '../../support/db.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

const ORG = '1b6f3c1e-3a53-4c8e-9a57-0d5f0f6f7a11';
const WS = '6c1c6f0e-1c7b-4f53-8a55-9d0e3c2b1a22';
const sql = <T = any>(q: string, p: unknown[] = []) => db.orm.em.getConnection().execute<T[]>(q, p);

const record = (id: string, over: Partial<UsageRecord> = {}): UsageRecord => ({
  idempotency_id: `${id}:0`, request_id: id, attempt: 0, trace_id: `trace-${id}`, organisation_id: ORG, workspace_id: WS,
  api_key_id: '', provider: 'openai', model: 'gpt-4o-mini', endpoint: 'chat.completions', method: 'POST', status: 200,
  started_at_ms: Date.UTC(2026, 10, 22, 12), latency_ms: 12, upstream_latency_ms: 10, prompt_tokens: 3,
  completion_tokens: 4, total_tokens: 7, is_stream: false, error_code: '', metadata_json: '', ...over,
});

const partitions = async () =>
  (await sql<{ name: string }>(`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'request_log'::regclass order by 1`)).map((r) => r.name);

describe('partitioned request_log', () => {
  it('is partitioned by range on started_at, and a record of a month without partition gets one', async () => {
    const [kind] = await sql<{ strategy: string }>(`select partstrat as strategy from pg_partitioned_table where partrelid = 'request_log'::regclass`);
    expect(kind!.strategy).toBe('r');
    expect(await partitions()).not.toContain('request_log_p201503');
    const ack = await storeUsageBatch(db.orm.em.fork(), { batch_id: 'old', records: [record('p-old', { started_at_ms: Date.UTC(2015, 2, 31, 23, 59, 59) })] });
    expect(ack.stored).toBe(1);
    expect(await partitions()).toContain('request_log_p201503');
    const [row] = await sql(`select tableoid::regclass::text as part from request_log where request_id = 'p-old'`);
    expect(row.part).toBe('request_log_p201503');
  });

  it('keeps a resent batch once across partitions, even with other timestamps (ids claimed in request_log_dedup)', async () => {
    const batch = { batch_id: 'r', records: [record('p-a', { started_at_ms: Date.UTC(2026, 9, 1) }), record('p-b', { started_at_ms: Date.UTC(2026, 10, 1) })] };
    expect(await storeUsageBatch(db.orm.em.fork(), batch)).toEqual({ batch_id: 'r', stored: 2, duplicates: 0, rejected: 0 });
    expect(await storeUsageBatch(db.orm.em.fork(), batch)).toEqual({ batch_id: 'r', stored: 0, duplicates: 2, rejected: 0 });
    const moved = { batch_id: 'r2', records: [record('p-a', { started_at_ms: Date.UTC(2026, 8, 1) }), record('p-c', { started_at_ms: Date.UTC(2026, 8, 1) })] };
    expect(await storeUsageBatch(db.orm.em.fork(), moved)).toEqual({ batch_id: 'r2', stored: 1, duplicates: 1, rejected: 0 });
    expect(Number((await sql(`select count(*) as n from request_log where request_id in ('p-a', 'p-b', 'p-c')`))[0].n)).toBe(3);
  });

  it('creates partitions ahead and drops months wholly older than the retention', async () => {
    await storeUsageBatch(db.orm.em.fork(), { batch_id: 'ret', records: [record('ret-1', { started_at_ms: Date.UTC(2015, 4, 10) }), record('ret-2', { started_at_ms: Date.UTC(2015, 5, 10) })] });
    const now = new Date(Date.UTC(2015, 6, 15));
    // Retention 30 days before 2015-07-15 is 2015-06-15: May is wholly older, June is not.
    const r = await maintainRequestLogs(db.orm, { retentionDays: 30, monthsAhead: 2, now });
    expect(r.ensured).toEqual(['request_log_p201507', 'request_log_p201508', 'request_log_p201509']);
    expect(r.dropped).toContain('request_log_p201505');
    expect(r.dropped).toContain('request_log_p201503');
    expect(r.dropped).not.toContain('request_log_p201506');
    const left = (await sql(`select request_id from request_log where request_id like 'ret-%'`)).map((x) => x.request_id);
    expect(left).toEqual(['ret-2']);
    // The dropped months' claimed ids go too; the kept month's stay.
    const claimed = (await sql(`select idempotency_id from request_log_dedup where idempotency_id like 'ret-%' order by 1`)).map((x) => x.idempotency_id);
    expect(claimed).toEqual(['ret-2:0']);
    // A late record of a dropped month still stores (its partition is made again).
    expect((await storeUsageBatch(db.orm.em.fork(), { batch_id: 'late', records: [record('ret-3', { started_at_ms: Date.UTC(2015, 4, 11) })] })).stored).toBe(1);
    // Retention 0 keeps everything.
    expect((await maintainRequestLogs(db.orm, { retentionDays: 0, now })).dropped).toEqual([]);
  });

  it('stores the new log fields: cost, cache, retries, target, guardrails, user, capped bodies and hashed sensitive headers', async () => {
    const big = 'x'.repeat(DEFAULT_LOG_BODY_MAX_BYTES + 10);
    await storeUsageBatch(db.orm.em.fork(), {
      batch_id: 'f',
      records: [
        record('f-1', {
          metadata_json: JSON.stringify({ _user: 'alice', team: 'a' }),
          cost: 1.25, cost_currency: '', cache_status: 'HIT', retry_count: 2, target_path: 'targets[1]',
          guardrail_verdicts_json: JSON.stringify([{ id: 'g1', verdict: true }]), request_url: 'https://gw/v1/chat/completions',
          request_headers_json: JSON.stringify({ 'X-Gateway-Sensitive-Headers': 'x-secret-id', 'X-Secret-Id': 'abc', Authorization: 'Bearer sk', 'x-plain': 'p' }),
          request_body: JSON.stringify({ model: 'gpt', note: big }), response_headers_json: JSON.stringify({ 'x-secret-id': 'abc', 'content-type': 'application/json' }),
          response_body: '{"ok":true}', is_proxy: true, mode: 'fallback',
        }),
      ],
    });
    const [row] = await sql(`select * from request_log where request_id = 'f-1'`);
    const hash = (v: string) => `sha256:${createHash('sha256').update(v).digest('hex')}`;
    expect(row).toMatchObject({
      user_id: 'alice', cost: 1.25, cost_currency: 'USD', cache_status: 'HIT', retry_count: 2, target_path: 'targets[1]',
      guardrail_verdicts: [{ id: 'g1', verdict: true }], request_url: 'https://gw/v1/chat/completions', is_proxy: true, mode: 'fallback',
      bodies_truncated: true, response_body: '{"ok":true}', source: 'gateway',
    });
    expect(row.request_headers).toEqual({ 'x-gateway-sensitive-headers': 'x-secret-id', 'x-secret-id': hash('abc'), authorization: hash('Bearer sk'), 'x-plain': 'p' });
    expect(row.response_headers).toEqual({ 'x-secret-id': hash('abc'), 'content-type': 'application/json' });
    expect(Buffer.byteLength(row.request_body)).toBe(DEFAULT_LOG_BODY_MAX_BYTES);
  });

  it("drops the workspace's denied request/response/metadata content before storing", async () => {
    const ws2 = '7c1c6f0e-1c7b-4f53-8a55-9d0e3c2b1a22';
    // This database has no organisation or workspace rows: skip the foreign keys for the seed.
    await sql(`alter table log_field_restriction disable trigger all`);
    await sql(`insert into log_field_restriction (id, organisation_id, workspace_id, denied_fields) values (gen_random_uuid(), ?, ?, '["request","metadata"]')`, [ORG, ws2]);
    await sql(`alter table log_field_restriction enable trigger all`);
    const body = { request_headers_json: '{"a":"1"}', request_body: '{"q":1}', response_body: '{"r":2}', metadata_json: '{"k":"v"}' };
    await storeUsageBatch(db.orm.em.fork(), { batch_id: 'd', records: [record('d-denied', { ...body, workspace_id: ws2 }), record('d-open', body)] });
    const rows = await sql(`select request_id, request_headers, request_body, response_body, metadata from request_log where request_id like 'd-%' order by request_id`);
    expect(rows).toEqual([
      { request_id: 'd-denied', request_headers: null, request_body: null, response_body: '{"r":2}', metadata: null },
      { request_id: 'd-open', request_headers: { a: '1' }, request_body: '{"q":1}', response_body: '{"r":2}', metadata: { k: 'v' } },
    ]);
  });
});
