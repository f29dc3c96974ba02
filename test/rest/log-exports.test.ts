// Log exports over REST and GraphQL (issue 9, item 2): the catalogue's routes, the spec's states
// (an export in progress cannot be deleted until cancelled; DELETE archives and hides it),
// denied fields refused on create and update, field restrictions, the JSONL job and download.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { UsageRecord } from '../../src/domain/usage-record.ts';
import { storeUsageBatch } from '../../src/services/usage/store-usage.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { graphqlCall } from '../support/api.ts';

let stack: Stack;
let base: string;
let otherWs: { id: string; slug: string };
let wsKey: string;
let otherWsKey: string;
let listOnlyKey: string;

const sql = <T = any>(q: string, params: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, params);
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);

async function call(method: string, path: string, body?: unknown, key: string | null = stack.adminKey) {
  const headers: Record<string, string> = {};
  if (key) headers['x-gateway-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path.startsWith('http') ? path : `${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let parsed: any = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  return { status: res.status, text, headers: res.headers, body: parsed };
}

const gql = graphqlCall(() => base, () => stack.adminKey);

const T0 = Date.UTC(2026, 10, 21, 8, 0, 0);
let seq = 0;
function record(over: Partial<UsageRecord> = {}): UsageRecord {
  const id = `exp-${++seq}`;
  return {
    idempotency_id: `${id}:0`, request_id: id, attempt: 0, trace_id: `trace-${id}`, organisation_id: stack.organisationId, workspace_id: stack.workspaceId,
    api_key_id: '', provider: 'openai', model: 'gpt-4o-mini', endpoint: 'chat.completions', method: 'POST', status: 200,
    started_at_ms: T0 + seq * 1000, latency_ms: 50, upstream_latency_ms: 40, prompt_tokens: 2, completion_tokens: 3, total_tokens: 5,
    is_stream: false, error_code: '', metadata_json: JSON.stringify({ n: String(seq) }), request_body: JSON.stringify({ q: seq }), response_body: JSON.stringify({ a: seq }), cost: 0.5,
    ...over,
  };
}

/** Waits for the job to finish the export (started: it leaves in_progress when done). */
async function finished(id: string, key = stack.adminKey) {
  for (;;) {
    const r = await call('GET', `/v1/logs/exports/${id}`, undefined, key);
    if (r.body.status !== 'in_progress') return r.body;
    await new Promise((res) => setTimeout(res, 25));
  }
}

/** An export held by another (live) replica: the job here leaves it alone. */
async function inProgressElsewhere(workspaceId = stack.workspaceId): Promise<string> {
  const id = crypto.randomUUID();
  await sql(
    `insert into log_export (id, organisation_id, workspace_id, filters, requested_data, status, description, created_by, started_at, lease_until)
     values (?, ?, ?, '{}', '["id"]', 'in_progress', 'held', ?, now(), now() + interval '1 hour')`,
    [id, stack.organisationId, workspaceId, crypto.randomUUID()],
  );
  return id;
}

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  base = stack.controlPlane.httpUrl;
  otherWs = (await call('POST', '/v1/admin/workspaces', { name: 'Export Other' })).body;
  wsKey = (await stack.createKey({ name: 'exp ws', workspace_id: 'ws-default', scopes: ['logs.export'] })).key;
  otherWsKey = (await stack.createKey({ name: 'exp other', workspace_id: otherWs.id, scopes: ['logs.export'] })).key;
  listOnlyKey = (await stack.createKey({ name: 'exp ro', workspace_id: 'ws-default', scopes: ['logs.list'] })).key;
  await storeUsageBatch(stack.db.orm.em.fork(), {
    batch_id: 'seed',
    records: [
      ...Array.from({ length: 25 }, () => record()),
      record({ status: 500, model: 'gpt-4o' }),
      record({ workspace_id: '' }), // no workspace: never exported
    ],
  });
  await storeUsageBatch(stack.db.orm.em.fork(), { batch_id: 'other', records: [record({ workspace_id: otherWs.id })] });
});
afterAll(async () => stack?.close());

describe('log exports over REST', () => {
  it('creates (→ {id, total, object}), gets, lists, runs to a JSONL file and downloads it by signed URL', async () => {
    const created = await call('POST', '/v1/logs/exports', {
      workspace_id: stack.workspaceId,
      filters: { time_of_generation_min: new Date(T0).toISOString(), status_code: '200' },
      requested_data: ['id', 'trace_id', 'ai_model', 'cost', 'metadata', 'request', 'response_status_code'],
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ id: expect.stringMatching(UUID_RE), total: 25, object: 'export' });
    const id = created.body.id;

    const got = await call('GET', `/v1/logs/exports/${id}`);
    expect(got.body).toEqual({
      id, organisation_id: stack.organisationId, workspace_id: stack.workspaceId,
      filters: { time_of_generation_min: new Date(T0).toISOString(), status_code: '200' },
      requested_data: ['id', 'trace_id', 'ai_model', 'cost', 'metadata', 'request', 'response_status_code'],
      status: 'draft', description: expect.any(String), created_at: ISO, last_updated_at: ISO, created_by: expect.stringMatching(UUID_RE),
      object: 'export', progress: { total: 25, processed: 0, percent: 0 }, error: null,
    });
    const listed = await call('GET', `/v1/logs/exports?workspace_id=${stack.workspaceId}`);
    expect(listed.body).toMatchObject({ object: 'list', total: expect.any(Number) });
    expect(listed.body.data.map((e: any) => e.id)).toContain(id);
    expect((await call('GET', `/v1/logs/exports?workspace_id=${otherWs.id}`)).body.data.map((e: any) => e.id)).not.toContain(id);

    // Not finished: no download yet.
    expect((await call('GET', `/v1/logs/exports/${id}/download`)).body.error.code).toBe('export_not_ready');

    const started = await call('POST', `/v1/logs/exports/${id}/start`);
    expect(started.body).toEqual({ message: expect.any(String), object: 'export' });
    const done = await finished(id);
    expect(done).toMatchObject({ status: 'success', progress: { total: 25, processed: 25, percent: 100 } });

    const dl = await call('GET', `/v1/logs/exports/${id}/download`);
    expect(dl.status).toBe(200);
    expect(dl.body).toEqual({ signed_url: expect.stringMatching(new RegExp(`^${base}/v1/logs/exports/${id}/file\\?token=`)) });
    const file = await call('GET', dl.body.signed_url, undefined, null);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/x-ndjson');
    const lines = file.text.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(25);
    expect(Object.keys(lines[0])).toEqual(['id', 'trace_id', 'ai_model', 'cost', 'metadata', 'request', 'response_status_code']);
    expect(lines[0]).toMatchObject({ trace_id: 'trace-exp-25', ai_model: 'gpt-4o-mini', cost: 0.5, metadata: { n: '25' }, response_status_code: 200, request: { method: 'POST', body: { q: 25 } } });
    // Newest first, each log once.
    expect(new Set(lines.map((l) => l.id)).size).toBe(25);

    // A tampered or foreign token is refused.
    const bad = await call('GET', `/v1/logs/exports/${id}/file?token=${encodeURIComponent('x.y.z')}`, undefined, null);
    expect(bad.status).toBe(403);
    const other = (await call('POST', '/v1/logs/exports', { workspace_id: stack.workspaceId, filters: {}, requested_data: ['id'] })).body.id;
    const token = new URL(dl.body.signed_url).searchParams.get('token')!;
    expect((await call('GET', `/v1/logs/exports/${other}/file?token=${encodeURIComponent(token)}`, undefined, null)).status).toBe(403);

    // Finished: start again is a conflict; update puts it back to draft (and drops the file).
    expect((await call('POST', `/v1/logs/exports/${id}/start`)).body.error.code).toBe('export_already_finished');
    const updated = await call('PUT', `/v1/logs/exports/${id}`, { filters: { status_code: '500' } });
    expect(updated.body).toEqual({ id, total: 1, object: 'export' });
    expect((await call('GET', `/v1/logs/exports/${id}`)).body).toMatchObject({ status: 'draft', filters: { status_code: '500' }, requested_data: ['id', 'trace_id', 'ai_model', 'cost', 'metadata', 'request', 'response_status_code'] });
    expect((await call('GET', dl.body.signed_url, undefined, null)).status).toBe(404);
  });

  it('honours page_size/current_page and workspace keys export their own workspace', async () => {
    const r = await call('POST', '/v1/logs/exports', { filters: { page_size: 10, current_page: 2 }, requested_data: ['id'] }, wsKey);
    expect(r.body.total).toBe(6); // 26 logs in ws-default: page 2 of 10 holds 6
    const e = await call('GET', `/v1/logs/exports/${r.body.id}`, undefined, wsKey);
    expect(e.body.workspace_id).toBe(stack.workspaceId);
    await call('POST', `/v1/logs/exports/${r.body.id}/start`, undefined, wsKey);
    expect(await finished(r.body.id, wsKey)).toMatchObject({ status: 'success', progress: { processed: 6 } });
    // Other workspace's key cannot see it; naming another workspace is refused.
    expect((await call('GET', `/v1/logs/exports/${r.body.id}`, undefined, otherWsKey)).status).toBe(404);
    expect((await call('POST', '/v1/logs/exports', { workspace_id: otherWs.id, filters: {}, requested_data: ['id'] }, wsKey)).status).toBe(403);
  });

  it('validates bodies: filters and requested_data required, field names, organisation keys name the workspace', async () => {
    expect((await call('POST', '/v1/logs/exports', { workspace_id: stack.workspaceId, requested_data: ['id'] })).body.error.param).toBe('filters');
    expect((await call('POST', '/v1/logs/exports', { workspace_id: stack.workspaceId, filters: {} })).body.error.param).toBe('requested_data');
    expect((await call('POST', '/v1/logs/exports', { workspace_id: stack.workspaceId, filters: {}, requested_data: ['nope'] })).body.error.param).toBe('requested_data[0]');
    expect((await call('POST', '/v1/logs/exports', { workspace_id: stack.workspaceId, filters: { page_size: 50001 }, requested_data: ['id'] })).body.error.param).toBe('filters.page_size');
    expect((await call('POST', '/v1/logs/exports', { workspace_id: stack.workspaceId, filters: { bogus: 1 }, requested_data: ['id'] })).body.error.param).toBe('filters.bogus');
    expect((await call('POST', '/v1/logs/exports', { filters: {}, requested_data: ['id'] })).body.error.param).toBe('workspace_id');
    expect((await call('POST', '/v1/logs/exports', { filters: {}, requested_data: ['id'] }, listOnlyKey)).status).toBe(403);
  });

  it('states: an export in progress cannot be updated or deleted until cancelled; DELETE archives and hides it', async () => {
    const id = await inProgressElsewhere();
    expect((await call('DELETE', `/v1/logs/exports/${id}`)).body.error).toMatchObject({ code: 'export_in_progress' });
    expect((await call('DELETE', `/v1/logs/exports/${id}`)).status).toBe(409);
    expect((await call('PUT', `/v1/logs/exports/${id}`, { filters: {} })).status).toBe(409);
    expect((await call('POST', `/v1/logs/exports/${id}/start`)).body.error.code).toBe('export_in_progress');

    const cancelled = await call('POST', `/v1/logs/exports/${id}/cancel`);
    expect(cancelled.body).toEqual({ message: expect.any(String), object: 'export' });
    expect((await call('GET', `/v1/logs/exports/${id}`)).body.status).toBe('stopped');
    expect((await call('POST', `/v1/logs/exports/${id}/cancel`)).body.error.code).toBe('export_not_in_progress');

    const deleted = await call('DELETE', `/v1/logs/exports/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({});
    expect((await call('GET', `/v1/logs/exports/${id}`)).status).toBe(404);
    expect((await call('GET', '/v1/logs/exports')).body.data.map((e: any) => e.id)).not.toContain(id);
    expect((await call('DELETE', `/v1/logs/exports/${id}`)).status).toBe(404);
    expect((await call('POST', `/v1/logs/exports/${id}/start`)).status).toBe(404);
    expect((await sql('select archived_at from log_export where id = ?', [id]))[0].archived_at).not.toBeNull();

    // A stopped export can be started again and runs to success here.
    const again = (await call('POST', '/v1/logs/exports', { workspace_id: stack.workspaceId, filters: { status_code: '500' }, requested_data: ['id'] })).body.id;
    await call('POST', `/v1/logs/exports/${again}/start`);
    expect((await finished(again)).status).toBe('success');
    expect((await call('DELETE', `/v1/logs/exports/${again}`)).status).toBe(200);
  });

  it('denied fields: refused on create and update, effective restrictions answered, set by organisation keys only', async () => {
    const put = await call('PUT', '/v1/logs/exports/field-restrictions', { denied_fields: ['request'] });
    expect(put.body).toEqual({ object: 'field-restrictions', workspace_id: null, denied_fields: ['request'] });
    await call('PUT', '/v1/logs/exports/field-restrictions', { workspace_id: 'ws-default', denied_fields: ['metadata', 'cost'] });
    const eff = await call('GET', `/v1/logs/exports/field-restrictions?workspace_id=${stack.workspaceId}`);
    expect(eff.body).toEqual({
      object: 'field-restrictions', workspace_id: stack.workspaceId, denied_fields: ['request', 'cost', 'metadata'],
      organisation_denied_fields: ['request'], workspace_denied_fields: ['cost', 'metadata'],
    });
    expect((await call('GET', '/v1/logs/exports/field-restrictions', undefined, wsKey)).body.denied_fields).toEqual(['request', 'cost', 'metadata']);
    expect((await call('GET', `/v1/logs/exports/field-restrictions?workspace_id=${otherWs.id}`)).body.denied_fields).toEqual(['request']);
    expect((await call('GET', '/v1/logs/exports/field-restrictions')).body.error.param).toBe('workspace_id');
    expect((await call('GET', `/v1/logs/exports/field-restrictions?workspace_id=${otherWs.id}`, undefined, wsKey)).status).toBe(404);
    expect((await call('PUT', '/v1/logs/exports/field-restrictions', { denied_fields: [] }, wsKey)).status).toBe(403);
    expect((await call('PUT', '/v1/logs/exports/field-restrictions', { denied_fields: ['nope'] })).body.error.param).toBe('denied_fields[0]');

    const refused = await call('POST', '/v1/logs/exports', { workspace_id: stack.workspaceId, filters: {}, requested_data: ['id', 'cost', 'request'] });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'field_denied', param: 'requested_data' });
    expect(refused.body.error.message).toContain('request');
    const ok = await call('POST', '/v1/logs/exports', { workspace_id: otherWs.id, filters: {}, requested_data: ['id', 'cost'] });
    expect(ok.status).toBe(200);
    const id = (await call('POST', '/v1/logs/exports', { workspace_id: stack.workspaceId, filters: {}, requested_data: ['id'] })).body.id;
    const upd = await call('PUT', `/v1/logs/exports/${id}`, { filters: {}, requested_data: ['id', 'metadata'] });
    expect(upd.body.error).toMatchObject({ code: 'field_denied', param: 'requested_data' });

    await call('PUT', '/v1/logs/exports/field-restrictions', { denied_fields: [] });
    await call('PUT', '/v1/logs/exports/field-restrictions', { workspace_id: 'ws-default', denied_fields: [] });
    expect((await call('GET', '/v1/logs/exports/field-restrictions', undefined, wsKey)).body.denied_fields).toEqual([]);
  });

  it('needs logs.export; unknown ids are 404', async () => {
    expect((await call('GET', '/v1/logs/exports', undefined, listOnlyKey)).status).toBe(403);
    expect((await call('GET', `/v1/logs/exports/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await call('GET', '/v1/logs/exports/not-a-uuid')).status).toBe(404);
  });
});

describe('log exports over GraphQL', () => {
  it('creates, starts, reads progress, downloads, cancels and deletes', async () => {
    const c = await gql(`mutation($i: CreateLogExportInput!) { createLogExport(input: $i) { __typename ... on LogExportTotal { id total object } } }`, {
      i: { workspace_id: 'ws-default', filters: { ai_model: 'gpt-4o' }, requested_data: ['id', 'ai_model'] },
    });
    expect(c.body.data.createLogExport).toMatchObject({ __typename: 'LogExportTotal', total: 1, object: 'export' });
    const id = c.body.data.createLogExport.id;
    const s = await gql(`mutation($id: ID!) { startLogExport(id: $id) { __typename ... on LogExportMessage { object } } }`, { id });
    expect(s.body.data.startLogExport).toEqual({ __typename: 'LogExportMessage', object: 'export' });
    await finished(id);
    const g = await gql(`query($id: ID!) { logExport(id: $id) { status progress { total processed percent } } logExportDownload(id: $id) { signed_url } }`, { id });
    expect(g.body.data.logExport).toEqual({ status: 'success', progress: { total: 1, processed: 1, percent: 100 } });
    expect(g.body.data.logExportDownload.signed_url).toMatch(new RegExp(`^/v1/logs/exports/${id}/file\\?token=`));
    const held = await inProgressElsewhere();
    const cancel = await gql(`mutation($id: ID!) { cancelLogExport(id: $id) { __typename ... on LogExportMessage { message } } }`, { id: held });
    expect(cancel.body.data.cancelLogExport.__typename).toBe('LogExportMessage');
    const del = await gql(`mutation($id: ID!) { deleteLogExport(id: $id) { __typename ... on LogExportDeleted { id } } }`, { id: held });
    expect(del.body.data.deleteLogExport).toEqual({ __typename: 'LogExportDeleted', id: held });
    const list = await gql(`{ logExports { total data { id } } }`);
    expect(list.body.data.logExports.data.map((e: any) => e.id)).not.toContain(held);
    const r = await gql(`query($w: String) { logFieldRestrictions(workspace_id: $w) { denied_fields } }`, { w: 'ws-default' });
    expect(r.body.data.logFieldRestrictions).toEqual({ denied_fields: [] });
  });
});
