// Analytics over REST and GraphQL (issue 9, item 3): every graph, the cache summary and the
// groups, computed from seeded logs and feedback, with time range, bucket and filters.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { UsageRecord } from '../../src/domain/usage-record.ts';
import { storeUsageBatch } from '../../src/services/usage/store-usage.ts';
import { startStack, type Stack } from '../support/stack.ts';

let stack: Stack;
let base: string;
let otherWs: { id: string; slug: string };
let wsKey: string;
let otherKey: string;

const H = (h: number, m = 0) => Date.UTC(2026, 10, 21, h, m);
const RANGE = `time_of_generation_min=${new Date(H(0)).toISOString()}&time_of_generation_max=${new Date(H(2, 59)).toISOString()}`;

async function call(path: string, key: string | null = stack.adminKey) {
  const res = await fetch(`${base}${path}`, { headers: key ? { 'x-gateway-api-key': key } : {} });
  return { status: res.status, body: (await res.json()) as any };
}
async function gql(query: string, variables: Record<string, unknown> = {}, key = stack.adminKey) {
  const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-gateway-api-key': key }, body: JSON.stringify({ query, variables }) });
  return (await res.json()) as any;
}
const graph = async (name: string, extra = '', key = stack.adminKey) => {
  const r = await call(`/v1/analytics/graphs/${name}?${RANGE}${extra}`, key);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.object).toBe('analytics-graph');
  return r.body;
};
const T = (h: number) => new Date(H(h)).toISOString().replace('.000Z', 'Z');

let seq = 0;
function record(at: number, over: Partial<UsageRecord> = {}): UsageRecord {
  const id = `an-${++seq}`;
  return {
    idempotency_id: `${id}:0`, request_id: id, attempt: 0, trace_id: `t-${id}`, organisation_id: stack.organisationId, workspace_id: stack.workspaceId,
    api_key_id: '', provider: 'openai', model: 'gpt-4o-mini', endpoint: 'chat.completions', method: 'POST', status: 200, started_at_ms: at,
    latency_ms: 100, upstream_latency_ms: 90, prompt_tokens: 10, completion_tokens: 10, total_tokens: 20, is_stream: false, error_code: '', metadata_json: '', cost: 10,
    ...over,
  };
}

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  base = stack.controlPlane.httpUrl;
  const ws = await fetch(`${base}/v1/admin/workspaces`, { method: 'POST', headers: { 'x-gateway-api-key': stack.adminKey, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'An Other' }) });
  otherWs = (await ws.json()) as any;
  wsKey = (await stack.createKey({ name: 'an', workspace_id: 'ws-default', scopes: ['analytics.view', 'feedback.create'] })).key;
  otherKey = (await stack.createKey({ name: 'an o', workspace_id: otherWs.id, scopes: ['analytics.view'] })).key;
  // Hour 0: 3 requests (alice ×2, bob), one 500; hour 1: 2 requests (cache HIT, SEMANTIC HIT), one 429; hour 2: none.
  await storeUsageBatch(stack.db.orm.em.fork(), {
    batch_id: 'an',
    records: [
      record(H(0, 5), { trace_id: 'T1', metadata_json: '{"_user":"alice","team":"red"}', latency_ms: 100, retry_count: 1 }),
      record(H(0, 10), { metadata_json: '{"_user":"alice","team":"red"}', latency_ms: 200, model: 'gpt-4o', total_tokens: 40 }),
      record(H(0, 20), { metadata_json: '{"_user":"bob","team":"blue"}', latency_ms: 300, status: 500, cost: 0 }),
      record(H(1, 5), { trace_id: 'T2', cache_status: 'HIT', latency_ms: 10, cost: 4, mode: 'fallback', target_path: 'targets[1]' }),
      record(H(1, 30), { cache_status: 'SEMANTIC HIT', latency_ms: 20, status: 429, cost: 6 }),
      record(H(1, 40), { workspace_id: otherWs.id }),
      record(H(5), {}), // outside the range
    ],
  });
  for (const [trace_id, value, weight] of [['T1', 8, 1], ['T1', 4, 0.5], ['T2', -2, 1]] as const) {
    const r = await fetch(`${base}/v1/feedback`, { method: 'POST', headers: { 'x-gateway-api-key': wsKey, 'content-type': 'application/json' }, body: JSON.stringify({ trace_id, value, weight }) });
    expect(r.status).toBe(200);
  }
  // Feedback is timed when given: place it in hour 1 of the range.
  await stack.db.orm.em.getConnection().execute(`update feedback set created_at = ?`, [new Date(H(1, 50))]);
});
afterAll(async () => stack?.close());

describe('analytics graphs', () => {
  it('requests, cost, tokens, latency per hour with empty buckets filled (default workspace for an admin key)', async () => {
    expect(await graph('requests')).toEqual({ object: 'analytics-graph', summary: { total: 5 }, data_points: [{ timestamp: T(0), total: 3 }, { timestamp: T(1), total: 2 }, { timestamp: T(2), total: 0 }] });
    expect((await graph('cost')).summary).toEqual({ total: 30, avg: 6 });
    const tokens = await graph('tokens');
    expect(tokens.summary).toEqual({ total: 120, avg: 24 });
    expect(tokens.data_points[0]).toEqual({ timestamp: T(0), total: 80, avg: 27 });
    const latency = await graph('latency');
    expect(latency.summary).toEqual({ avg: 126, p50: 100, p90: 260, p99: 296 });
    expect(latency.data_points[0]).toEqual({ timestamp: T(0), avg: 200, p50: 200, p90: 280, p99: 298 });
  });

  it('users, errors, rescued, cache and feedback graphs', async () => {
    expect((await graph('users')).summary).toEqual({ total: 2 });
    expect((await graph('users/requests')).summary).toEqual({ total: 3, unique: 2, avg: 2 });
    expect((await graph('errors')).summary).toEqual({ total: 2 });
    expect((await graph('errors/rate')).data_points).toEqual([{ timestamp: T(0), rate: 33 }, { timestamp: T(1), rate: 50 }, { timestamp: T(2), rate: 0 }]);
    expect((await graph('errors/stacks')).data_points[1]).toEqual({ timestamp: T(1), stats: [{ response_status_code: 429, count: 1 }] });
    expect(await graph('errors/status-codes')).toEqual({ object: 'analytics-graph', summary: { total_errors: 2, unique_error_codes: 2 }, data_points: [{ status_code: 429, count: 1 }, { status_code: 500, count: 1 }] });
    const rescued = await graph('requests/rescued');
    expect(rescued.summary).toEqual({ retry: 1, fallback: 1 });
    expect(rescued.data_points[0]).toEqual({ timestamp: T(0), retry: [{ retry_success_count: 1, count: 1 }], fallback: 0 });
    const hit = await graph('cache/hit-rate');
    expect(hit.summary).toEqual({ total: 2, rate: 40 });
    expect(hit.data_points[1]).toEqual({ timestamp: T(1), simple_hits: 1, semantic_hits: 1, rate: 100, cumulative_simple_cache_savings: 4, cumulative_semantic_cache_savings: 6 });
    expect((await graph('cache/latency')).data_points[1]).toEqual({ timestamp: T(1), avg: 15 });
    expect((await graph('feedbacks')).summary).toEqual({ total: 3 });
    expect((await graph('feedbacks/scores')).data_points).toEqual([{ score: -2, total: 1 }, { score: 4, total: 1 }, { score: 8, total: 1 }]);
    expect((await graph('feedbacks/weighted')).summary).toEqual({ avg: 3 }); // (8 + 2 − 2) / 3
    expect((await graph('feedbacks/ai-models')).data_points).toEqual([{ ai_model: 'gpt-4o-mini', total: 3, avg_weighted_feedback: 3 }]);
  });

  it('applies filters, bucket and workspace scoping', async () => {
    expect((await graph('requests', '&status_code=200')).summary.total).toBe(3);
    expect((await graph('requests', `&metadata=${encodeURIComponent('{"team":"red"}')}`)).summary.total).toBe(2);
    expect((await graph('requests', '&ai_org_model=openai__gpt-4o')).summary.total).toBe(1);
    expect((await graph('feedbacks', '&trace_id=T2')).summary.total).toBe(1);
    expect((await graph('requests', '&bucket=day')).data_points).toEqual([{ timestamp: T(0), total: 5 }]);
    expect((await graph('requests', `&workspace_slug=${otherWs.slug}`)).summary.total).toBe(1);
    // Workspace keys: their own workspace; workspace_slug is ignored.
    expect((await graph('requests', '', otherKey)).summary.total).toBe(1);
    expect((await graph('requests', '&workspace_slug=ws-default', otherKey)).summary.total).toBe(1);
  });

  it('requires the time range, validates parameters and needs analytics.view', async () => {
    const r = await call('/v1/analytics/graphs/requests');
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('time_of_generation_min');
    expect((await call(`/v1/analytics/graphs/requests?${RANGE}&bucket=minute&time_of_generation_max=2027-01-01T00:00:00Z`)).body.error.param).toBe('bucket');
    expect((await call(`/v1/analytics/graphs/requests?${RANGE}&status_code=x`)).body.error.param).toBe('status_code');
    expect((await call(`/v1/analytics/graphs/requests?${RANGE}&nope=1`)).body.error.param).toBe('nope');
    expect((await call(`/v1/analytics/graphs/requests?${RANGE}&order_by=x`)).status).toBe(200);
    const noScope = (await stack.createKey({ name: 'an none', workspace_id: 'ws-default', scopes: ['logs.list'] })).key;
    expect((await call(`/v1/analytics/graphs/requests?${RANGE}`, noScope)).status).toBe(403);
  });
});

describe('analytics summary and groups', () => {
  it('summary/cache', async () => {
    const r = await call(`/v1/analytics/summary/cache?${RANGE}`);
    expect(r.body).toEqual({ object: 'analytics-summary', summary: { hits: 2, avg_latency: 15, total_requests: 5, cache_speedup: 93 } });
  });

  it('groups by user, model and metadata value, paged', async () => {
    const users = await call(`/v1/analytics/groups/users?${RANGE}`);
    expect(users.body).toEqual({ object: 'list', total: 2, data: [{ user: 'alice', requests: '2', cost: '20', object: 'analytics-group' }, { user: 'bob', requests: '1', cost: '0', object: 'analytics-group' }] });
    const page1 = await call(`/v1/analytics/groups/users?${RANGE}&page_size=1&current_page=1`);
    expect(page1.body).toMatchObject({ total: 2, data: [{ user: 'bob' }] });
    const models = await call(`/v1/analytics/groups/ai-models?${RANGE}`);
    expect(models.body.data).toEqual([{ ai_model: 'gpt-4o-mini', requests: 4, object: 'analytics-group' }, { ai_model: 'gpt-4o', requests: 1, object: 'analytics-group' }]);
    const team = await call(`/v1/analytics/groups/metadata/team?${RANGE}`);
    expect(team.body).toMatchObject({ object: 'list', total: 2 });
    expect(team.body.data[0]).toEqual({
      metadata_value: 'red', requests: 2, cost: 20, avg_tokens: 30, avg_weighted_feedback: 5, requests_with_feedback: 1,
      last_seen: new Date(H(0, 10)).toISOString(), object: 'analytics-group',
    });
    expect((await call(`/v1/analytics/groups/metadata/${encodeURIComponent("it's")}?${RANGE}`)).body).toEqual({ object: 'list', total: 0, data: [] });
  });

  it('over GraphQL', async () => {
    const g = await gql(`query($p: JSON!) { analyticsGraph(graph: "requests", params: $p) { summary object } analyticsCacheSummary(params: $p) { summary } analyticsGroup(group: "metadata", metadata_key: "team", params: $p) { total } }`, {
      p: { time_of_generation_min: new Date(H(0)).toISOString(), time_of_generation_max: new Date(H(2, 59)).toISOString() },
    });
    expect(g.data).toEqual({ analyticsGraph: { summary: { total: 5 }, object: 'analytics-graph' }, analyticsCacheSummary: { summary: { hits: 2, avg_latency: 15, total_requests: 5, cache_speedup: 93 } }, analyticsGroup: { total: 2 } });
    const bad = await gql(`{ analyticsGraph(graph: "nope", params: {}) { object } }`);
    expect(bad.errors[0].extensions.code).toBe('unknown_graph');
  });
});
