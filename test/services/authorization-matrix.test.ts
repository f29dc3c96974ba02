// The spec's Authentication tables, walked: every role and key type over every operation,
// asserting allow (200) or deny (403). Providers, analytics and feedback join this table when
// their resources land (issues 4 and 9).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { MEMBER_SCOPES } from '../../src/domain/roles.ts';
import { ORGANISATION_KEY_SCOPES, WORKSPACE_SCOPES } from '../../src/domain/scopes.ts';
import { startStack, type Stack } from '../support/stack.ts';

type Actor = 'Admin API key' | 'Workspace API key' | 'Organization Owner' | 'Organization Admin' | 'Workspace Manager' | 'Workspace Member';
const ACTORS: Actor[] = ['Admin API key', 'Workspace API key', 'Organization Owner', 'Organization Admin', 'Workspace Manager', 'Workspace Member'];

let stack: Stack;
const keys = {} as Record<Actor, string>;
let ws2 = '';
let targetUser = '';
let extraUser = '';
let n = 0;
const uniq = () => `${Date.now().toString(36)}${++n}`;

async function call(key: string, method: string, path: string, body?: unknown): Promise<number> {
  const res = await fetch(`${stack.controlPlane.httpUrl}${path}`, {
    method,
    headers: { 'x-gateway-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  await res.arrayBuffer();
  return res.status;
}

const sql = (q: string, p: unknown[] = []) => stack.db.orm.em.getConnection().execute(q, p);

async function user(role: 'admin' | 'member', workspaceRole?: 'manager' | 'member'): Promise<string> {
  const id = crypto.randomUUID();
  await sql('insert into app_user (id, organisation_id, email, role) values (?, ?, ?, ?)', [id, stack.organisationId, `${uniq()}@example.com`, role]);
  if (workspaceRole) {
    await sql('insert into workspace_member (id, workspace_id, user_id, role) values (?, ?, ?, ?)', [crypto.randomUUID(), stack.workspaceId, id, workspaceRole]);
  }
  return id;
}

async function userKey(path: string, body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${stack.controlPlane.httpUrl}${path}`, {
    method: 'POST',
    headers: { 'x-gateway-api-key': stack.adminKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { key?: string };
  if (res.status !== 200) throw new Error(`key for ${JSON.stringify(body)}: ${res.status} ${JSON.stringify(json)}`);
  return json.key!;
}

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  const [owner] = (await sql("select id from app_user where role = 'owner'")) as { id: string }[];
  const orgAdmin = await user('admin');
  const manager = await user('member', 'manager');
  const member = await user('member', 'member');
  targetUser = await user('member');
  extraUser = await user('member');
  const wsRes = await fetch(`${stack.controlPlane.httpUrl}/v1/admin/workspaces`, {
    method: 'POST',
    headers: { 'x-gateway-api-key': stack.adminKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'second' }),
  });
  ws2 = ((await wsRes.json()) as { id: string }).id;

  keys['Admin API key'] = stack.adminKey;
  keys['Workspace API key'] = await userKey('/v1/api-keys/workspace/service', { name: 'ws', workspace_id: 'ws-default', scopes: [...WORKSPACE_SCOPES] });
  keys['Organization Owner'] = await userKey('/v1/api-keys/organisation/user', { name: 'owner', user_id: owner!.id, scopes: [...ORGANISATION_KEY_SCOPES] });
  keys['Organization Admin'] = await userKey('/v1/api-keys/organisation/user', { name: 'admin', user_id: orgAdmin, scopes: [...ORGANISATION_KEY_SCOPES] });
  keys['Workspace Manager'] = await userKey('/v1/api-keys/workspace/user', { name: 'mgr', workspace_id: 'ws-default', user_id: manager, scopes: [...WORKSPACE_SCOPES] });
  keys['Workspace Member'] = await userKey('/v1/api-keys/workspace/user', { name: 'mbr', workspace_id: 'ws-default', user_id: member, scopes: [...MEMBER_SCOPES] });
});
afterAll(async () => stack?.close());

const window = () =>
  new URLSearchParams({ start_time: new Date(Date.now() - 3_600_000).toISOString(), end_time: new Date(Date.now() + 60_000).toISOString(), organisation_id: stack.organisationId });

/** An organisation integration every workspace may use (created once, by the admin key). */
let shared: Promise<string> | null = null;
const sharedIntegration = () =>
  (shared ??= (async () => {
    const slug = `shared-${uniq()}`;
    await fetch(`${stack.controlPlane.httpUrl}/v1/integrations`, { method: 'POST', headers: { 'x-gateway-api-key': stack.adminKey, 'content-type': 'application/json' }, body: JSON.stringify({ name: slug, slug, ai_provider_id: 'openai', key: 'sk-matrix' }) });
    await fetch(`${stack.controlPlane.httpUrl}/v1/integrations/${slug}/workspaces`, { method: 'PUT', headers: { 'x-gateway-api-key': stack.adminKey, 'content-type': 'application/json' }, body: JSON.stringify({ global_workspace_access: { enabled: true }, create_default_provider: false }) });
    return slug;
  })());
/** One organisation guardrail (no workspace), made on first use by the Admin key. */
let orgGuardrailId: Promise<string> | null = null;
const orgGuardrail = (): Promise<string> =>
  (orgGuardrailId ??= fetch(`${stack.controlPlane.httpUrl}/v1/guardrails`, {
    method: 'POST',
    headers: { 'x-gateway-api-key': stack.adminKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'org guard', checks: [{ id: 'default.notNull' }], actions: {} }),
  }).then(async (r) => ((await r.json()) as { id: string }).id));

// [operation, request, who may]
const Y = true;
const N = false;
const MATRIX: [string, (key: string) => Promise<number>, Record<Actor, boolean>][] = [
  ['read organisation settings', (k) => call(k, 'GET', '/v1/admin/organisation/settings'),
    { 'Admin API key': Y, 'Workspace API key': N, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': N, 'Workspace Member': N }],
  ['manage organisation settings', (k) => call(k, 'PUT', '/v1/admin/organisation/settings', { max_api_key_expiry_days: 3650 }),
    { 'Admin API key': Y, 'Workspace API key': N, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': N, 'Workspace Member': N }],
  ['create a workspace', (k) => call(k, 'POST', '/v1/admin/workspaces', { name: `w-${uniq()}` }),
    { 'Admin API key': Y, 'Workspace API key': N, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': N, 'Workspace Member': N }],
  ['manage a workspace', (k) => call(k, 'PUT', `/v1/admin/workspaces/${ws2}`, { description: uniq() }),
    { 'Admin API key': Y, 'Workspace API key': N, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': N, 'Workspace Member': N }],
  ['manage users (change a role)', (k) => call(k, 'PUT', `/v1/admin/users/${targetUser}`, { role: 'member' }),
    { 'Admin API key': Y, 'Workspace API key': N, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': N, 'Workspace Member': N }],
  ['invite a user', (k) => call(k, 'POST', '/v1/admin/users/invites', { email: `${uniq()}@example.com`, role: 'member', workspaces: [{ id: 'ws-default', role: 'member' }] }),
    { 'Admin API key': Y, 'Workspace API key': N, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': N, 'Workspace Member': N }],
  ['manage workspace members', (k) => call(k, 'POST', `/v1/admin/workspaces/${stack.workspaceId}/users`, { users: [{ id: extraUser, role: 'member' }] }),
    { 'Admin API key': Y, 'Workspace API key': N, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': N, 'Workspace Member': N }],
  ['create an Admin API key', (k) => call(k, 'POST', '/v1/api-keys/organisation/service', { name: 'a', scopes: ['workspaces.list'] }),
    { 'Admin API key': Y, 'Workspace API key': N, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': N, 'Workspace Member': N }],
  ['create a Workspace API key in its own workspace', (k) => call(k, 'POST', '/v1/api-keys/workspace/service', { name: 'w', workspace_id: 'ws-default', scopes: ['completions.write'] }),
    { 'Admin API key': Y, 'Workspace API key': Y, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': Y, 'Workspace Member': N }],
  ['create a Workspace API key in another workspace', (k) => call(k, 'POST', '/v1/api-keys/workspace/service', { name: 'w', workspace_id: ws2, scopes: ['completions.write'] }),
    { 'Admin API key': Y, 'Workspace API key': N, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': N, 'Workspace Member': N }],
  ['create a config in its own workspace', (k) => call(k, 'POST', '/v1/configs', { name: `c-${uniq()}`, workspace_id: 'ws-default', config: { retry: { attempts: 2 } } }),
    { 'Admin API key': Y, 'Workspace API key': Y, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': Y, 'Workspace Member': N }],
  ['create a config in another workspace', (k) => call(k, 'POST', '/v1/configs', { name: `c-${uniq()}`, workspace_id: ws2, config: { retry: { attempts: 2 } } }),
    { 'Admin API key': Y, 'Workspace API key': N, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': N, 'Workspace Member': N }],
  ['list configs', (k) => call(k, 'GET', '/v1/configs?workspace_id=ws-default'),
    { 'Admin API key': Y, 'Workspace API key': Y, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': Y, 'Workspace Member': Y }],
  ['create a rate-limit policy in its own workspace', (k) => call(k, 'POST', '/v2/policies/rate-limits', { conditions: [{ key: 'api_key', value: '*' }], group_by: [{ key: 'api_key' }], type: 'requests', unit: 'rpm', value: 10, workspace_id: 'ws-default' }),
    { 'Admin API key': Y, 'Workspace API key': Y, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': Y, 'Workspace Member': N }],
  ['create a usage-limit policy in another workspace', (k) => call(k, 'POST', '/v2/policies/usage-limits', { conditions: [{ key: 'api_key', value: '*' }], group_by: [{ key: 'api_key' }], type: 'cost', credit_limit: 10, workspace_id: ws2 }),
    { 'Admin API key': Y, 'Workspace API key': N, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': N, 'Workspace Member': N }],
  ['list rate-limit policies', (k) => call(k, 'GET', '/v2/policies/rate-limits'),
    { 'Admin API key': Y, 'Workspace API key': Y, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': Y, 'Workspace Member': N }],
  ['create a secret reference', (k) => call(k, 'POST', '/v1/secret-references', { name: `s-${uniq()}`, manager_type: 'env', auth_config: {}, secret_path: 'SECRETREF_X' }),
    { 'Admin API key': Y, 'Workspace API key': N, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': N, 'Workspace Member': N }],
  ['read public model pricing', (k) => call(k, 'GET', '/model-configs/pricing/openai/gpt-4o'),
    { 'Admin API key': Y, 'Workspace API key': Y, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': Y, 'Workspace Member': Y }],
  ['create a guardrail in its own workspace', (k) => call(k, 'POST', '/v1/guardrails', { name: `g-${uniq()}`, workspace_id: 'ws-default', checks: [{ id: 'default.notNull' }], actions: {} }),
    { 'Admin API key': Y, 'Workspace API key': Y, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': Y, 'Workspace Member': N }],
  ['create a guardrail in another workspace', (k) => call(k, 'POST', '/v1/guardrails', { name: `g-${uniq()}`, workspace_id: ws2, checks: [{ id: 'default.notNull' }], actions: {} }),
    { 'Admin API key': Y, 'Workspace API key': N, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': N, 'Workspace Member': N }],
  ['list guardrails', (k) => call(k, 'GET', '/v1/guardrails?workspace_id=ws-default'),
    { 'Admin API key': Y, 'Workspace API key': Y, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': Y, 'Workspace Member': Y }],
  ['manage an organisation guardrail', async (k) => call(k, 'PUT', `/v1/guardrails/${await orgGuardrail()}`, { name: `o-${uniq()}` }),
    { 'Admin API key': Y, 'Workspace API key': N, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': N, 'Workspace Member': N }],
  ['set the organisation default guardrails', (k) => call(k, 'PUT', '/v1/admin/organisation/defaults', { input_guardrails: [] }),
    { 'Admin API key': Y, 'Workspace API key': N, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': N, 'Workspace Member': N }],
  ['exclude workspaces from organisation guardrails', (k) => call(k, 'PUT', '/v1/workspace-exclusions/input-guardrails', { workspaces: [{ workspace_id: ws2 }] }),
    { 'Admin API key': Y, 'Workspace API key': N, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': N, 'Workspace Member': N }],
  ['create an MCP integration in its own workspace', (k) => call(k, 'POST', '/v1/mcp-integrations', { name: `m-${uniq()}`, url: 'https://mcp.example.test', auth_type: 'none', transport: 'http', workspace_id: 'ws-default' }),
    { 'Admin API key': Y, 'Workspace API key': Y, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': Y, 'Workspace Member': N }],
  ['create an MCP integration in another workspace', (k) => call(k, 'POST', '/v1/mcp-integrations', { name: `m-${uniq()}`, url: 'https://mcp.example.test', auth_type: 'none', transport: 'http', workspace_id: ws2 }),
    { 'Admin API key': Y, 'Workspace API key': N, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': N, 'Workspace Member': N }],
  ['list MCP servers', (k) => call(k, 'GET', '/v1/mcp-servers?workspace_id=ws-default'),
    { 'Admin API key': Y, 'Workspace API key': Y, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': Y, 'Workspace Member': N }],
  ['create a deployment', (k) => call(k, 'POST', '/v1/deployments', { name: `d-${uniq()}` }),
    { 'Admin API key': Y, 'Workspace API key': N, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': N, 'Workspace Member': N }],
  ['list API keys', (k) => call(k, 'GET', '/v2/api-keys'),
    { 'Admin API key': Y, 'Workspace API key': Y, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': Y, 'Workspace Member': N }],
  ['create an integration', (k) => call(k, 'POST', '/v1/integrations', { name: `i-${uniq()}`, ai_provider_id: 'openai' }),
    { 'Admin API key': Y, 'Workspace API key': N, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': N, 'Workspace Member': N }],
  ['list integrations', (k) => call(k, 'GET', '/admin/v2/integrations?type=all'),
    { 'Admin API key': Y, 'Workspace API key': N, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': N, 'Workspace Member': N }],
  ['create a provider in its own workspace', async (k) => call(k, 'POST', '/v1/providers', { name: 'p', integration_id: await sharedIntegration(), workspace_id: 'ws-default' }),
    { 'Admin API key': Y, 'Workspace API key': Y, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': Y, 'Workspace Member': N }],
  ['create a provider in another workspace', async (k) => call(k, 'POST', '/v1/providers', { name: 'p', integration_id: await sharedIntegration(), workspace_id: ws2 }),
    { 'Admin API key': Y, 'Workspace API key': N, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': N, 'Workspace Member': N }],
  ['list providers', (k) => call(k, 'GET', '/v1/providers?workspace_id=ws-default'),
    { 'Admin API key': Y, 'Workspace API key': Y, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': Y, 'Workspace Member': Y }],
  ['create a virtual key in its own workspace', (k) => call(k, 'POST', '/v1/virtual-keys', { name: 'v', provider: 'openai', key: 'sk-v', workspace_id: 'ws-default' }),
    { 'Admin API key': Y, 'Workspace API key': Y, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': Y, 'Workspace Member': N }],
  ['list virtual keys', (k) => call(k, 'GET', '/v1/virtual-keys?current_page=0&page_size=10'),
    { 'Admin API key': Y, 'Workspace API key': Y, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': Y, 'Workspace Member': Y }],
  ['read the audit log', (k) => call(k, 'GET', `/v1/audit-logs?${window()}`),
    { 'Admin API key': Y, 'Workspace API key': N, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': N, 'Workspace Member': N }],
  ['view analytics', (k) => call(k, 'GET', `/v1/analytics/graphs/requests?workspace_slug=ws-default&time_of_generation_min=${new Date(Date.now() - 3_600_000).toISOString()}&time_of_generation_max=${new Date().toISOString()}`),
    { 'Admin API key': Y, 'Workspace API key': Y, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': Y, 'Workspace Member': Y }],
  ['create feedback', (k) => call(k, 'POST', '/v1/feedback', { trace_id: uniq(), value: 1 }),
    { 'Admin API key': N, 'Workspace API key': Y, 'Organization Owner': N, 'Organization Admin': N, 'Workspace Manager': Y, 'Workspace Member': Y }],
  ['create a log export in its own workspace', (k) => call(k, 'POST', '/v1/logs/exports', { workspace_id: 'ws-default', filters: {}, requested_data: ['id'] }),
    { 'Admin API key': Y, 'Workspace API key': Y, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': Y, 'Workspace Member': N }],
  ['list request logs', (k) => call(k, 'GET', '/v1/logs?workspace_id=ws-default'),
    { 'Admin API key': Y, 'Workspace API key': Y, 'Organization Owner': Y, 'Organization Admin': Y, 'Workspace Manager': Y, 'Workspace Member': Y }],
];

describe('authorization matrix (spec: Authentication 3)', () => {
  for (const [operation, request, allowed] of MATRIX) {
    for (const actor of ACTORS) {
      it(`${actor} ${allowed[actor] ? 'may' : 'may not'} ${operation}`, async () => {
        expect(await request(keys[actor])).toBe(allowed[actor] ? 200 : 403);
      });
    }
  }

  it('bounds a user key by its user’s current role: demoting a workspace manager takes the powers away', async () => {
    const manager = await user('member', 'manager');
    const key = await userKey('/v1/api-keys/workspace/user', { name: 'm2', workspace_id: 'ws-default', user_id: manager, scopes: [...WORKSPACE_SCOPES] });
    const create = () => call(key, 'POST', '/v1/api-keys/workspace/service', { name: 'w', workspace_id: 'ws-default', scopes: ['completions.write'] });
    expect(await create()).toBe(200);
    await sql("update workspace_member set role = 'member' where user_id = ?", [manager]);
    expect(await create()).toBe(403);
  });

  it('lets an Admin key give workspace keys the feedback operations it may not use itself', async () => {
    const res = await fetch(`${stack.controlPlane.httpUrl}/v1/api-keys/workspace/service`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': stack.adminKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'fb', workspace_id: 'ws-default', scopes: ['feedback.create'] }),
    });
    expect(res.status).toBe(200);
    const own = await fetch(`${stack.controlPlane.httpUrl}/v1/api-keys/organisation/service`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': stack.adminKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'fb2', scopes: ['feedback.create'] }),
    });
    expect(own.status).toBe(400);
    expect(((await own.json()) as any).error.param).toBe('scopes[0]');
  });

  it('refuses keys whose scopes exceed the user’s role', async () => {
    const member = await user('member', 'member');
    const res = await fetch(`${stack.controlPlane.httpUrl}/v1/api-keys/workspace/user`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': stack.adminKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x', workspace_id: 'ws-default', user_id: member, scopes: ['workspace_service_api_keys.create'] }),
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as any).error.code).toBe('scope_exceeds_role');
  });

  it('gives the same verdicts through GraphQL', async () => {
    const gql = async (key: string) => {
      const res = await fetch(`${stack.controlPlane.httpUrl}/graphql`, {
        method: 'POST',
        headers: { 'x-gateway-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ query: `mutation { createApiKey(type: "organisation", sub_type: "service", input: { name: "g", scopes: ["workspaces.list"] }) { __typename ... on GatewayError { status code } } }` }),
      });
      return ((await res.json()) as any).data.createApiKey;
    };
    expect(await gql(keys['Organization Admin'])).toEqual({ __typename: 'CreatedApiKey' });
    expect(await gql(keys['Workspace Manager'])).toEqual({ __typename: 'GatewayError', status: 403, code: 'permission_denied' });
    expect(await gql(keys['Workspace API key'])).toEqual({ __typename: 'GatewayError', status: 403, code: 'permission_denied' });
  });
});
