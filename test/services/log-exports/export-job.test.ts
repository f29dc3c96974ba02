// The log export job on its own (export-job.ts): chunks with progress, cancellation between
// chunks (partial file removed), an expired lease reclaimed, a failure recorded as `failed`.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { UsageRecord } from '../../../src/domain/usage-record.ts';
import { runExportsOnce } from '../../../src/services/log-exports/export-job.ts';
import { storeUsageBatch } from '../../../src/services/usage/store-usage.ts';
import { createTestDatabase, type TestDatabase } from '../../support/db.ts';

let db: TestDatabase;
let dir: string;
let org: string;
let ws: string;
const sql = <T = any>(q: string, p: unknown[] = []) => db.orm.em.getConnection().execute<T[]>(q, p);

beforeAll(async () => {
  db = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), 'log-export-'));
  org = crypto.randomUUID();
  ws = crypto.randomUUID();
  await sql(`insert into organisation (id, name, slug) values (?, 'Org', ?)`, [org, `org-${org.slice(0, 8)}`]);
  await sql(`insert into workspace (id, organisation_id, slug, name) values (?, ?, ?, 'WS')`, [ws, org, `ws-${ws.slice(0, 8)}`]);
  const records: UsageRecord[] = Array.from({ length: 10 }, (_, i) => ({
    idempotency_id: `j${i}:0`, request_id: `j${i}`, attempt: 0, trace_id: `jt${i}`, organisation_id: org, workspace_id: ws, api_key_id: '',
    provider: 'openai', model: 'm', endpoint: 'chat.completions', method: 'POST', status: 200, started_at_ms: Date.UTC(2026, 10, 1, 0, i),
    latency_ms: 1, upstream_latency_ms: 1, prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, is_stream: false, error_code: '', metadata_json: '',
  }));
  await storeUsageBatch(db.orm.em.fork(), { batch_id: 'j', records });
});
afterAll(async () => {
  await db?.drop();
  await rm(dir, { recursive: true, force: true });
});

async function started(lease: string | null = null): Promise<string> {
  const id = crypto.randomUUID();
  await sql(
    `insert into log_export (id, organisation_id, workspace_id, filters, requested_data, status, created_by, started_at, lease_until)
     values (?, ?, ?, '{}', '["trace_id"]', 'in_progress', ?, now(), ${lease ?? 'null'})`,
    [id, org, ws, crypto.randomUUID()],
  );
  return id;
}
const row = async (id: string) => (await sql('select status, processed, total, file_path, error, lease_until from log_export where id = ?', [id]))[0];

describe('export job', () => {
  it('writes in chunks, recording progress, and finishes with the file', async () => {
    const id = await started();
    const seen: number[] = [];
    const out = await runExportsOnce(db.orm, { dir, chunkSize: 3, onProgress: (_id, n) => void seen.push(n) });
    expect(out).toEqual([{ id, status: 'success', processed: 10 }]);
    expect(seen).toEqual([3, 6, 9, 10]);
    const r = await row(id);
    expect(r).toMatchObject({ status: 'success', processed: 10, total: 10, lease_until: null });
    expect(readFileSync(r.file_path, 'utf8').trim().split('\n').map((l) => JSON.parse(l).trace_id)).toEqual(['jt9', 'jt8', 'jt7', 'jt6', 'jt5', 'jt4', 'jt3', 'jt2', 'jt1', 'jt0']);
  });

  it('stops when cancelled between chunks and removes the partial file', async () => {
    const id = await started();
    const out = await runExportsOnce(db.orm, {
      dir,
      chunkSize: 2,
      onProgress: async (eid, n) => {
        if (n === 4) await sql(`update log_export set status = 'stopped' where id = ?`, [eid]);
      },
    });
    expect(out).toEqual([{ id, status: 'stopped', processed: 4 }]);
    expect((await row(id)).status).toBe('stopped');
    expect((await readdir(dir)).filter((f) => f.startsWith(id))).toEqual([]);
  });

  it('leaves exports leased by a live replica alone and reclaims an expired lease', async () => {
    const held = await started(`now() + interval '1 hour'`);
    const expired = await started(`now() - interval '1 minute'`);
    const out = await runExportsOnce(db.orm, { dir });
    expect(out.map((o) => o.id)).toEqual([expired]);
    expect((await row(held)).status).toBe('in_progress');
    expect((await row(expired)).status).toBe('success');
    await sql(`update log_export set status = 'stopped' where id = ?`, [held]);
  });

  it('records a failure as failed with its reason', async () => {
    const id = await started();
    const notADir = join(dir, 'file');
    writeFileSync(notADir, 'x');
    const out = await runExportsOnce(db.orm, { dir: notADir });
    expect(out).toEqual([{ id, status: 'failed', processed: 0 }]);
    const r = await row(id);
    expect(r.status).toBe('failed');
    expect(r.error).toBeTruthy();
    expect(existsSync(join(notADir, `${id}.jsonl`))).toBe(false);
  });
});
