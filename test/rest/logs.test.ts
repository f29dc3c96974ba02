// Request logs over REST and GraphQL (issue 9, item 1): GET /v1/logs with each filter and cursor
// paging, GET /v1/logs/{id} (LogObject, hashed headers, visibility), POST /v1/logs (custom logs).
import { createHash } from 'node:crypto';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { UsageRecord } from '../../src/domain/usage-record.ts';
import { storeUsageBatch } from '../../src/services/usage/store-usage.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { graphqlCall } from '../support/api.ts';

let stack: Stack;
let base: string;
let otherWs: { id: string; slug: string };
let wsKey: string;
let wsKeyId: string;
let noScopeKey: string;
let otherWsKey: string;

const sql = <T = any>(q: string, params: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, params);

async function call(method: string, path: string, body?: unknown, key: string | null = stack.adminKey) {
  const headers: Record<string, string> = {};
  if (key) headers['x-gateway-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, text, body: (text ? JSON.parse(text) : null) as any };
}

const gql = graphqlCall(() => base, () => stack.adminKey);

const T0 = Date.UTC(2026, 10, 20, 10, 0, 0);
let seq = 0;
function record(over: Partial<UsageRecord> = {}): UsageRecord {
  const id = `req-${++seq}`;
  return {
    idempotency_id: `${id}:0`, request_id: id, attempt: 0, trace_id: `trace-${id}`, organisation_id: stack.organisationId, workspace_id: stack.workspaceId,
    api_key_id: '', provider: 'openai', model: 'gpt-4o-mini', endpoint: 'chat.completions', method: 'POST', status: 200,
    started_at_ms: T0 + seq * 1000, latency_ms: 100, upstream_latency_ms: 80, prompt_tokens: 10, completion_tokens: 5, total_tokens: 15,
    is_stream: false, error_code: '', metadata_json: '', ...over,
  };
}

const store = (records: UsageRecord[]) => storeUsageBatch(stack.db.orm.em.fork(), { batch_id: crypto.randomUUID(), records });
const ids = (r: { body: { data: { trace_id: string }[] } }) => r.body.data.map((x) => x.trace_id).sort();

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  base = stack.controlPlane.httpUrl;
  const ws = await call('POST', '/v1/admin/workspaces', { name: 'Logs Other' });
  otherWs = ws.body;
  const k = await stack.createKey({ name: 'logs ws', workspace_id: 'ws-default', scopes: ['logs.list', 'logs.view', 'completions.write'] });
  wsKey = k.key;
  wsKeyId = k.id;
  noScopeKey = (await stack.createKey({ name: 'no logs', workspace_id: 'ws-default', scopes: ['configs.read'] })).key;
  otherWsKey = (await stack.createKey({ name: 'other', workspace_id: otherWs.id, scopes: ['logs.list', 'logs.view'] })).key;
  await store([
    record({ trace_id: 'A', api_key_id: wsKeyId, metadata_json: JSON.stringify({ _user: 'alice', team: 'red' }) }),
    record({ trace_id: 'B', status: 500, error_code: 'upstream_error', provider: 'anthropic', model: 'claude-3' }),
    record({ trace_id: 'C', status: 429, metadata_json: JSON.stringify({ team: 'blue' }), prompt_tokens: 100, completion_tokens: 50, total_tokens: 150, cost: 3.5 }),
    record({ trace_id: 'D', workspace_id: otherWs.id, model: 'gpt-4o' }),
    record({ trace_id: 'E', started_at_ms: Date.UTC(2026, 9, 5), model: 'gpt-4o' }),
  ]);
});
afterAll(async () => stack?.close());

describe('GET /v1/logs', () => {
  it('lists newest first across the organisation for an admin key, with the list item shape', async () => {
    const r = await call('GET', '/v1/logs');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    expect(r.body.data.map((x: any) => x.trace_id)).toEqual(['D', 'C', 'B', 'A', 'E']);
    const a = r.body.data.find((x: any) => x.trace_id === 'A');
    expect(a).toMatchObject({
      object: 'log', organisation_id: stack.organisationId, workspace_id: stack.workspaceId, workspace_slug: 'ws-default', api_key_id: wsKeyId,
      user: 'alice', metadata: { _user: 'alice', team: 'red' }, provider: 'openai', ai_model: 'gpt-4o-mini', endpoint: 'chat.completions',
      status: 200, is_success: true, response_time: 100, upstream_response_time: 80, req_units: 10, res_units: 5, total_units: 15,
      cost: 0, cost_currency: 'USD', retry_count: 0, source: 'gateway',
    });
    expect(a).not.toHaveProperty('request_body');
  });

  it('filters by time range, workspace, key, status, model, provider, metadata, trace id and more', async () => {
    const q = async (qs: string, key = stack.adminKey) => ids(await call('GET', `/v1/logs?${qs}`, undefined, key));
    expect(await q(`time_of_generation_min=${new Date(T0).toISOString()}`)).toEqual(['A', 'B', 'C', 'D']);
    expect(await q(`time_of_generation_max=${new Date(T0).toISOString()}`)).toEqual(['E']);
    expect(await q(`workspace_id=${otherWs.id}`)).toEqual(['D']);
    expect(await q(`workspace_id=ws-default`)).toEqual(['A', 'B', 'C', 'E']);
    expect(await q(`api_key_ids=${wsKeyId}`)).toEqual(['A']);
    expect(await q(`api_key_ids=not-a-uuid`)).toEqual([]);
    expect(await q('status_code=500,429')).toEqual(['B', 'C']);
    expect(await q('ai_model=gpt-4o')).toEqual(['D', 'E']);
    expect(await q('provider=anthropic')).toEqual(['B']);
    expect(await q('ai_org_model=anthropic__claude-3,openai__gpt-4o')).toEqual(['B', 'D', 'E']);
    expect(await q(`metadata=${encodeURIComponent(JSON.stringify({ team: 'blue' }))}`)).toEqual(['C']);
    expect(await q('trace_id=A,C')).toEqual(['A', 'C']);
    expect(await q('user=alice')).toEqual(['A']);
    expect(await q('total_units_min=100')).toEqual(['C']);
    expect(await q('cost_min=1')).toEqual(['C']);
    expect(await q('total_units_max=15&status_code=200')).toEqual(['A', 'D', 'E']);
  });

  it('pages with a cursor: limit, has_more, next_cursor, no overlap', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const r: any = await call('GET', `/v1/logs?limit=2${after ? `&after=${encodeURIComponent(after)}` : ''}`);
      expect(r.status).toBe(200);
      expect(r.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...r.body.data.map((x: any) => x.trace_id));
      after = r.body.next_cursor;
      expect(r.body.has_more).toBe(after !== null);
      pages++;
    } while (after);
    expect(pages).toBe(3);
    expect(seen).toEqual(['D', 'C', 'B', 'A', 'E']);
  });

  it('answers 400 naming bad parameters', async () => {
    expect((await call('GET', '/v1/logs?after=garbage')).body.error).toMatchObject({ param: 'after', code: 'invalid_parameter' });
    expect((await call('GET', '/v1/logs?limit=0')).body.error.param).toBe('limit');
    expect((await call('GET', '/v1/logs?limit=abc')).status).toBe(400);
    expect((await call('GET', '/v1/logs?status_code=abc')).body.error.param).toBe('status_code');
    expect((await call('GET', '/v1/logs?metadata=notjson')).body.error.param).toBe('metadata');
    expect((await call('GET', '/v1/logs?time_of_generation_min=yesterday')).body.error.param).toBe('time_of_generation_min');
    expect((await call('GET', '/v1/logs?workspace_id=nope')).status).toBe(404);
  });

  it('keeps workspace keys to their workspace; needs logs.list', async () => {
    expect(ids(await call('GET', '/v1/logs', undefined, wsKey))).toEqual(['A', 'B', 'C', 'E']);
    expect(ids(await call('GET', '/v1/logs', undefined, otherWsKey))).toEqual(['D']);
    expect((await call('GET', `/v1/logs?workspace_id=${otherWs.id}`, undefined, wsKey)).status).toBe(404);
    const denied = await call('GET', '/v1/logs', undefined, noScopeKey);
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('missing_scope');
    expect((await call('GET', '/v1/logs', undefined, null)).status).toBe(401);
  });
});

describe('GET /v1/logs/{logId}', () => {
  it('answers the LogObject with hashed sensitive headers and capped bodies', async () => {
    await store([
      record({
        trace_id: 'G', request_url: 'https://gw.example/v1/chat/completions', target_path: 'targets[1]', cache_status: 'MISS', retry_count: 1,
        request_headers_json: JSON.stringify({ 'x-gateway-sensitive-headers': '["x-customer-token"]', 'x-customer-token': 'secret', 'x-gateway-provider': 'openai', 'x-gateway-api-key': 'k' }),
        request_body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
        response_body: JSON.stringify({ id: 'cmpl', choices: [] }), response_headers_json: JSON.stringify({ 'content-type': 'application/json' }),
        metadata_json: JSON.stringify({ team: 'x' }),
      }),
    ]);
    const id = (await sql(`select id from request_log where trace_id = 'G'`))[0].id;
    const r = await call('GET', `/v1/logs/${id}`);
    expect(r.status).toBe(200);
    const h = (v: string) => `sha256:${createHash('sha256').update(v).digest('hex')}`;
    expect(r.body).toMatchObject({
      _id: id,
      organisation_id: stack.organisationId,
      request: {
        url: 'https://gw.example/v1/chat/completions',
        method: 'POST',
        headers: { 'x-customer-token': h('secret'), 'x-gateway-api-key': h('k'), 'x-gateway-provider': 'openai' },
        body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
        gatewayHeaders: { 'x-gateway-provider': 'openai', 'x-gateway-api-key': h('k') },
      },
      response: { status: 200, headers: { 'content-type': 'application/json' }, body: { id: 'cmpl', choices: [] }, responseTime: 100, lastUsedOptionJsonPath: 'targets[1]' },
      metrics: { trace_id: 'G', ai_org: 'openai', cache_status: 'MISS', retry_success_count: 1, stream_mode: 0, is_success: true, 'metadata.key': ['team'], 'metadata.value': ['x'] },
      finalUntransformedRequest: null,
    });
    expect(JSON.stringify(r.body)).not.toContain('secret');
  });

  it('is 404 for unknown ids, other workspaces and bad ids; 403 without logs.view', async () => {
    const d = (await sql(`select id from request_log where trace_id = 'D'`))[0].id;
    expect((await call('GET', `/v1/logs/${d}`, undefined, wsKey)).status).toBe(404);
    expect((await call('GET', `/v1/logs/${d}`, undefined, otherWsKey)).status).toBe(200);
    expect((await call('GET', `/v1/logs/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await call('GET', '/v1/logs/not-an-id')).status).toBe(404);
    expect((await call('GET', `/v1/logs/${d}`, undefined, noScopeKey)).status).toBe(403);
  });
});

describe('POST /v1/logs', () => {
  const custom = (trace: string) => ({
    request: { url: 'https://api.openai.com/v1/chat/completions', method: 'POST', headers: { authorization: 'Bearer sk-x', 'x-gateway-sensitive-headers': 'x-tenant' , 'x-tenant': 't1' }, body: { model: 'gpt-4', messages: [] } },
    response: { status: 201, headers: { 'x-tenant': 't1' }, body: { model: 'gpt-4', usage: { prompt_tokens: 7, completion_tokens: 3 } }, response_time: 42 },
    metadata: { trace_id: trace, span_id: 's1', span_name: 'root', _user: 'bob', env: 'prod' },
  });

  it('stores one log or an array, answering 200 with no body', async () => {
    const one = await call('POST', '/v1/logs', custom('CUST-1'), wsKey);
    expect(one.status).toBe(200);
    expect(one.text).toBe('');
    const many = await call('POST', '/v1/logs', [custom('CUST-2'), custom('CUST-3')]);
    expect(many.status).toBe(200);
    const listed = await call('GET', '/v1/logs?trace_id=CUST-1,CUST-2,CUST-3');
    expect(ids(listed)).toEqual(['CUST-1', 'CUST-2', 'CUST-3']);
    const item = listed.body.data.find((x: any) => x.trace_id === 'CUST-1');
    expect(item).toMatchObject({
      source: 'custom', provider: 'openai', ai_model: 'gpt-4', endpoint: 'chat.completions', status: 201, response_time: 42,
      req_units: 7, res_units: 3, total_units: 10, user: 'bob', metadata: { _user: 'bob', env: 'prod' }, span_id: 's1', span_name: 'root',
      workspace_id: stack.workspaceId, api_key_id: wsKeyId,
    });
    // Organisation keys log into the default workspace unless they name one.
    expect(listed.body.data.find((x: any) => x.trace_id === 'CUST-2').workspace_id).toBe(stack.workspaceId);
    const full = await call('GET', `/v1/logs/${item.id}`);
    expect(full.body.request.headers['x-tenant']).toMatch(/^sha256:/);
    expect(full.body.request.headers.authorization).toMatch(/^sha256:/);
    expect(full.body.response.headers['x-tenant']).toMatch(/^sha256:/);
    const audit = await sql(`select action from audit_event where action = 'log.insert'`);
    expect(audit.length).toBe(2);
  });

  it('names the bad field, and refuses keys without completions.write', async () => {
    const bad = await call('POST', '/v1/logs', { request: { body: {} }, response: { body: {} } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('request.url');
    expect((await call('POST', '/v1/logs', [{ ...custom('X'), response: { status: 99, body: {} } }])).body.error.param).toBe('[0].response.status');
    expect((await call('POST', '/v1/logs', 'nope')).status).toBe(400);
    expect((await call('POST', '/v1/logs', custom('Y'), otherWsKey)).status).toBe(403);
  });
});

describe('draft routes: /v1/logs/metadata/{key} and /v1/logs/groups/metadata/{key}', () => {
  it('lists the values of a metadata key and groups logs by them, with filters and paging', async () => {
    const values = await call('GET', `/v1/logs/metadata/team?workspace_id=ws-default&trace_id=A,B,C&time_of_generation_min=${new Date(T0).toISOString()}`);
    expect(values.status).toBe(200);
    expect(values.body).toMatchObject({ object: 'list', total: 2 });
    expect(values.body.data.map((v: any) => [v.value, v.count])).toEqual([['blue', 1], ['red', 1]]);
    const groups = await call('GET', `/v1/logs/groups/metadata/team?time_of_generation_min=${new Date(T0).toISOString()}&status_code=429`);
    expect(groups.body).toMatchObject({ object: 'list', total: 1, data: [{ metadata_value: 'blue', requests: 1, errors: 1, cost: 3.5, total_units: 150, avg_response_time: 100 }] });
    const paged = await call('GET', `/v1/logs/metadata/team?trace_id=A,C&page_size=1&current_page=1`);
    expect(paged.body).toMatchObject({ total: 2, data: [{ value: 'red' }] });
    expect((await call('GET', '/v1/logs/metadata/team', undefined, otherWsKey)).body).toMatchObject({ total: 0, data: [] });
    expect((await call('GET', '/v1/logs/metadata/team', undefined, noScopeKey)).status).toBe(403);
    expect((await call('GET', '/v1/logs/groups/metadata/team?page_size=0')).body.error.param).toBe('page_size');
    const g = await gql(`{ logMetadataGroups(key: "team", params: { status_code: "429" }) { total data { metadata_value } } }`);
    expect(g.body.data.logMetadataGroups).toEqual({ total: 1, data: [{ metadata_value: 'blue' }] });
  });
});

describe('request logs over GraphQL', () => {
  it('lists with filters and paging, gets one, inserts', async () => {
    const list = await gql(`query($f: JSON, $l: Int) { requestLogs(filters: $f, limit: $l) { object has_more next_cursor data { trace_id status ai_model } } }`, { f: { status_code: '500' }, l: 5 });
    expect(list.body.data.requestLogs).toEqual({ object: 'list', has_more: false, next_cursor: null, data: [{ trace_id: 'B', status: 500, ai_model: 'claude-3' }] });
    const id = (await sql(`select id from request_log where trace_id = 'B'`))[0].id;
    const one = await gql(`query($id: ID!) { requestLog(id: $id) { _id response metrics } }`, { id });
    expect(one.body.data.requestLog).toMatchObject({ _id: id, response: { status: 500 }, metrics: { error_code: 'upstream_error', is_success: false } });
    const ins = await gql(`mutation($logs: JSON!) { insertLogs(logs: $logs) { __typename ... on InsertedLogs { stored ids } } }`, {
      logs: [{ request: { url: '/v1/embeddings', body: {} }, response: { body: {} }, metadata: { trace_id: 'GQL-1' } }],
    }, wsKey);
    expect(ins.body.data.insertLogs).toMatchObject({ __typename: 'InsertedLogs', stored: 1 });
    const bad = await gql(`mutation { insertLogs(logs: {}) { __typename ... on GatewayError { code param status } } }`, {}, wsKey);
    expect(bad.body.data.insertLogs).toMatchObject({ __typename: 'GatewayError', status: 400 });
    const denied = await gql(`{ requestLogs { data { id } } }`, {}, noScopeKey);
    expect(denied.body.errors[0].extensions.code).toBe('missing_scope');
  });
});
