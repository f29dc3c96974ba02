import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { hashApiKey } from '../../src/domain/api-key-secret.ts';
import { startStack, type Stack } from '../support/stack.ts';

let stack: Stack;
let base: string;
const sql = <T>(q: string, params: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, params);

async function post(path: string, body: unknown, key: string | null = stack.adminKey, extra: Record<string, string> = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...extra };
  if (key) headers['x-gateway-api-key'] = key;
  const res = await fetch(`${base}${path}`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
}
const get = async (path: string, key = stack.adminKey) => {
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, body: (await res.json()) as any };
};

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  base = stack.controlPlane.httpUrl;
});
afterAll(async () => stack?.close());

describe('POST /v2/api-keys/{sub-type} and /v1/api-keys/{type}/{sub-type}', () => {
  it('creates a workspace service key, stores only its hash and answers {id, key, object}', async () => {
    const r = await post('/v2/api-keys/service', { name: 'app', workspace_id: 'ws-default', scopes: ['completions.write'] });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['id', 'key', 'object']);
    expect(r.body.object).toBe('api-key');
    expect(r.body.key).toMatch(/^[A-Za-z0-9]{40,}$/);
    const [row] = await sql<any>('select * from api_key where id = ?', [r.body.id]);
    expect(row.key_hash).toBe(await hashApiKey(r.body.key));
    expect(JSON.stringify(row)).not.toContain(r.body.key);
    expect(row.type).toBe('workspace-service');
    expect(row.workspace_id).toBe(stack.workspaceId);
    expect(Number(row.revision)).toBeGreaterThan(0);
  });

  it('creates an organisation service key on the /v1 path and the v2 path infers the level', async () => {
    const v1 = await post('/v1/api-keys/organisation/service', { name: 'org', scopes: ['workspaces.list'] });
    expect(v1.status).toBe(200);
    const v2 = await post('/v2/api-keys/service', { name: 'org2', scopes: ['workspaces.list'] });
    const types = await sql<{ type: string }>('select type from api_key where id in (?, ?)', [v1.body.id, v2.body.id]);
    expect(types.map((t) => t.type)).toEqual(['organisation-service', 'organisation-service']);
  });

  it('creates a workspace user key for a user of the organisation, and requires user_id', async () => {
    const [owner] = await sql<{ id: string }>("select id from app_user where role = 'owner'");
    const ok = await post('/v1/api-keys/workspace/user', { name: 'u', workspace_id: 'ws-default', user_id: owner!.id, scopes: ['completions.write'] });
    expect(ok.status).toBe(200);
    const missing = await post('/v1/api-keys/workspace/user', { name: 'u', workspace_id: 'ws-default', scopes: ['completions.write'] });
    expect(missing.status).toBe(400);
    expect(missing.body.error.param).toBe('user_id');
  });

  it.each([
    [{ scopes: ['completions.write'] }, 'name'],
    [{ name: 'x', workspace_id: 'ws-default', scopes: ['completions.write'], rate_limits: [{ type: 'requests', unit: 'rpm', value: 'ten' }] }, 'rate_limits[0].value'],
    [{ name: 'x', workspace_id: 'ws-default', scopes: ['completions.write'], rate_limits: [{ type: 'requests', unit: 'rpy', value: 1 }] }, 'rate_limits[0].unit'],
    [{ name: 'x', workspace_id: 'ws-default', scopes: ['completions.write'], usage_limits: { credit_limit: 0 } }, 'usage_limits.credit_limit'],
    [{ name: 'x', workspace_id: 'ws-default', scopes: ['completions.write'], alert_emails: ['nope'] }, 'alert_emails[0]'],
    [{ name: 'x', workspace_id: 'ws-default', scopes: ['completions.write'], rotation_policy: { rotation_period: 'weekly', key_transition_period_ms: 1000 } }, 'rotation_policy.key_transition_period_ms'],
    [{ name: 'x', workspace_id: 'ws-default', scopes: ['completions.write'], unknown_field: 1 }, 'unknown_field'],
    [{ name: 'x', workspace_id: 'ws-nope', scopes: ['completions.write'] }, 'workspace_id'],
    [{ name: 'x', workspace_id: 'ws-default', scopes: ['no.such_scope'] }, 'scopes[0]'],
    [{ name: 'x', workspace_id: 'ws-default', scopes: ['workspaces.create'] }, 'scopes[0]'],
  ])('answers 400 naming the field for %j', async (body, param) => {
    const before = await sql<{ n: string }>('select count(*) n from api_key');
    const r = await post('/v2/api-keys/service', body);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param });
    expect(typeof r.body.error.message).toBe('string');
    const after = await sql<{ n: string }>('select count(*) n from api_key');
    expect(after[0]!.n).toBe(before[0]!.n); // nothing half-written
  });

  it('rejects bad bodies and bad path parameters', async () => {
    expect((await post('/v2/api-keys/service', '{not json')).body.error.code).toBe('invalid_json');
    expect((await post('/v2/api-keys/service', '[1]')).status).toBe(400);
    expect((await post('/v2/api-keys/robot', { name: 'x', scopes: [] })).body.error.param).toBe('sub-type');
    expect((await post('/v1/api-keys/galaxy/service', { name: 'x', scopes: [] })).body.error.param).toBe('type');
    expect((await post('/v1/api-keys/organisation/user', { name: 'x', scopes: [] })).body.error.param).toBe('user_id');
  });

  it('answers 401 without a key or with a wrong one', async () => {
    expect((await post('/v2/api-keys/service', { name: 'x', scopes: [] }, null)).status).toBe(401);
    const r = await post('/v2/api-keys/service', { name: 'x', scopes: [] }, 'A'.repeat(48));
    expect(r.status).toBe(401);
    expect(r.body.error.type).toBe('authentication_error');
  });

  it('lets a workspace key create keys only in its workspace and never beyond its own scopes', async () => {
    const ws = await post('/v2/api-keys/service', {
      name: 'ws-admin', workspace_id: 'ws-default', scopes: ['workspace_service_api_keys.create', 'completions.write'],
    });
    const wsKey = ws.body.key as string;
    const ok = await post('/v2/api-keys/service', { name: 'child', scopes: ['completions.write'] }, wsKey);
    expect(ok.status).toBe(200);
    const [child] = await sql<{ workspace_id: string; type: string }>('select workspace_id, type from api_key where id = ?', [ok.body.id]);
    expect(child).toEqual({ workspace_id: stack.workspaceId, type: 'workspace-service' });

    const beyond = await post('/v2/api-keys/service', { name: 'c2', scopes: ['logs.view'] }, wsKey);
    expect(beyond.status).toBe(403);
    expect(beyond.body.error.code).toBe('scope_exceeds_creator');
    const orgKey = await post('/v1/api-keys/organisation/service', { name: 'c3', scopes: [] }, wsKey);
    expect(orgKey.status).toBe(403);
    const noScope = await post('/v1/api-keys/workspace/user', { name: 'c4', scopes: [] }, wsKey);
    expect(noScope.status).toBe(403);
  });

  it('writes an audit event for the create, with who, what, when, IP and no secret', async () => {
    const r = await post('/v2/api-keys/service', { name: 'audited', workspace_id: 'ws-default', scopes: ['completions.write'] }, stack.adminKey, { 'user-agent': 'audit-test' });
    const [ev] = await sql<any>('select * from audit_event where target_id = ?', [r.body.id]);
    const [admin] = await sql<{ id: string }>("select id from api_key where creation_mode = 'bootstrap'");
    expect(ev).toMatchObject({ action: 'api_key.create', target_type: 'api_key', actor_type: 'api_key', actor_id: admin!.id, user_agent: 'audit-test' });
    expect(ev.ip).toMatch(/127\.0\.0\.1/);
    expect(ev.request_details.name).toBe('audited');
    expect(JSON.stringify(ev.request_details)).not.toContain(r.body.key);
    expect(new Date(ev.created_at).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('writes no audit event for a refused create', async () => {
    const before = await sql<{ n: string }>('select count(*) n from audit_event');
    await post('/v2/api-keys/service', { name: 'x', workspace_id: 'ws-default', scopes: ['nope.nope'] });
    const after = await sql<{ n: string }>('select count(*) n from audit_event');
    expect(after[0]!.n).toBe(before[0]!.n);
  });
});

describe('GET /v2/api-keys and /v2/api-keys/{id}', () => {
  it('pages with current_page/page_size and never shows a raw key', async () => {
    const created = await post('/v2/api-keys/service', { name: 'listed', workspace_id: 'ws-default', scopes: ['completions.write'] });
    const all = await get('/v2/api-keys?page_size=1000');
    expect(all.status).toBe(200);
    expect(all.body.object).toBe('list');
    expect(all.body.total).toBe(all.body.data.length);
    const page = await get('/v1/api-keys?page_size=2&current_page=1');
    expect(page.body.data).toHaveLength(2);
    expect(page.body.total).toBe(all.body.total);
    expect(JSON.stringify(all.body)).not.toContain(created.body.key);
    const one = await get(`/v2/api-keys/${created.body.id}`);
    expect(one.body).toMatchObject({ id: created.body.id, name: 'listed', object: 'api-key', type: 'workspace-service', status: 'active' });
    expect(one.body.key).toBe(`${created.body.key.slice(0, 4)}*******${created.body.key.slice(-2)}`);
    expect((await get('/v2/api-keys/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await get('/v2/api-keys?page_size=abc')).body.error.param).toBe('page_size');
  });
});

describe('GraphQL', () => {
  const gql = async (query: string, variables: unknown = {}, key: string | null = stack.adminKey) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (key) headers['x-gateway-api-key'] = key;
    const res = await fetch(`${base}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('answers me, apiKeys and apiKey, and createApiKey with typed errors', async () => {
    const me = await gql('{ me { organisation_id key_type workspace_id } }');
    expect(me.body.data.me).toEqual({ organisation_id: stack.organisationId, key_type: 'organisation-service', workspace_id: null });
    const created = await gql(
      `mutation { createApiKey(sub_type: "service", input: { name: "g", workspace_id: "ws-default", scopes: ["completions.write"] }) {
        __typename ... on CreatedApiKey { id key object } } }`,
    );
    expect(created.body.data.createApiKey).toMatchObject({ __typename: 'CreatedApiKey', object: 'api-key' });
    const bad = await gql(
      `mutation { createApiKey(sub_type: "service", input: { name: "g", scopes: ["x.y"] }) {
        __typename ... on GatewayError { code param status } } }`,
    );
    expect(bad.body.data.createApiKey).toEqual({ __typename: 'GatewayError', code: 'invalid_parameter', param: 'scopes[0]', status: 400 });
    const list = await gql('{ apiKeys(page_size: 1) { object total data { id key } } }');
    expect(list.body.data.apiKeys.data).toHaveLength(1);
    const one = await gql('query($id: ID!) { apiKey(id: $id) { id name } }', { id: created.body.data.createApiKey.id });
    expect(one.body.data.apiKey.name).toBe('g');
  });

  it('answers 401 without a key', async () => {
    const r = await gql('{ me { organisation_id } }', {}, null);
    expect(r.status).toBe(401);
    expect(r.body.errors[0].extensions.code).toBe('invalid_api_key');
  });
});

describe('the ApiKey object after create (lifecycle fields)', () => {
  it('answers every field of the ApiKey object, with rotation and usage state', async () => {
    const r = await post('/v2/api-keys/service', {
      name: 'shape', workspace_id: 'ws-default', scopes: ['completions.write'],
      usage_limits: { credit_limit: 100, type: 'tokens' }, rotation_policy: { rotation_period_days: 3 },
    });
    const one = await get(`/v2/api-keys/${r.body.id}`);
    expect(Object.keys(one.body).sort()).toEqual([
      'alert_emails', 'created_at', 'creation_mode', 'current_usage', 'defaults', 'description', 'expires_at', 'id', 'key',
      'last_reset_at', 'last_rotated_at', 'last_updated_at', 'name', 'object', 'organisation_id', 'pending_key_created_at', 'rate_limits',
      'reset_usage', 'rotation_pending', 'rotation_policy', 'scopes', 'status', 'type', 'usage_limits', 'user_id', 'workspace_id',
    ]);
    expect(one.body).toMatchObject({
      reset_usage: 0, last_reset_at: null, last_rotated_at: null, rotation_pending: false, pending_key_created_at: null,
      current_usage: { type: 'tokens', used: 0, limit: 100, fraction: 0, reset_at: null, next_reset_at: null, cost_tracking: 'available' },
    });
    // A period without next_rotation_at gets one computed, so the scheduler knows when.
    expect(Math.abs(Date.parse(one.body.rotation_policy.next_rotation_at) - (Date.now() + 3 * 86_400_000))).toBeLessThan(60_000);
    expect(one.body.rotation_policy.rotation_period_days).toBe(3);
  });

  it('keeps a next_rotation_at given on create', async () => {
    const at = new Date(Date.now() + 5 * 86_400_000).toISOString();
    const r = await post('/v2/api-keys/service', { name: 'once', workspace_id: 'ws-default', scopes: ['completions.write'], rotation_policy: { next_rotation_at: at } });
    expect(r.status).toBe(200);
    const [row] = await sql<any>('select rotation_policy from api_key where id = ?', [r.body.id]);
    expect(row.rotation_policy).toEqual({ next_rotation_at: at });
  });
});
