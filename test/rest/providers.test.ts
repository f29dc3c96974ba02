import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startStack, type Stack } from '../support/stack.ts';
import { restCallWithText } from '../support/api.ts';

let stack: Stack;
let base: string;
let otherWs: { id: string; slug: string };
/** Workspace key of ws-default with every providers scope. */
let wsKey: string;
let integ: { id: string; slug: string };

const sql = <T = any>(q: string, params: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, params);

const call = restCallWithText(() => base, () => stack.adminKey);

async function gql(query: string, variables: Record<string, unknown> = {}, key: string | null = stack.adminKey) {
  const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...(key ? { 'x-gateway-api-key': key } : {}) }, body: JSON.stringify({ query, variables }) });
  return { status: res.status, body: (await res.json()) as any };
}

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const FUTURE = new Date(Date.now() + 86_400_000).toISOString();

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  base = stack.controlPlane.httpUrl;
  otherWs = (await call('POST', '/v1/admin/workspaces', { name: 'Prov Other' })).body;
  wsKey = (await stack.createKey({ name: 'prov ws', workspace_id: 'ws-default', scopes: ['providers.create', 'providers.read', 'providers.update', 'providers.delete', 'providers.list'] })).key;
  const i = await call('POST', '/v1/integrations', { name: 'Shared OpenAI', ai_provider_id: 'openai', key: 'sk-provider-test-secret-123456' });
  integ = i.body;
  // Shared with ws-default only, without default providers.
  expect((await call('PUT', `/v1/integrations/${integ.slug}/workspaces`, { workspaces: [{ id: stack.workspaceId, enabled: true }], create_default_provider: false })).status).toBe(200);
});
afterAll(async () => stack?.close());

describe('providers over REST', () => {
  it('creates, lists, gets, updates and deletes; every write tells workers', async () => {
    const created = await call('POST', '/v1/providers', {
      name: 'Team OpenAI',
      integration_id: integ.slug,
      workspace_id: stack.workspaceId,
      note: 'for the team',
      usage_limits: { credit_limit: 10, type: 'cost' },
      rate_limits: { type: 'requests', unit: 'rpm', value: 100 },
      expires_at: FUTURE,
    });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toEqual({ id: expect.stringMatching(UUID_RE), slug: expect.stringMatching(/^team-openai-[0-9a-f]{6}$/) });
    const { id, slug } = created.body;
    const item = {
      id,
      workspace_id: stack.workspaceId,
      name: 'Team OpenAI',
      integration_id: integ.slug,
      note: 'for the team',
      status: 'active',
      usage_limits: { credit_limit: 10, type: 'cost' },
      reset_usage: null,
      created_at: ISO,
      slug,
      rate_limits: [{ type: 'requests', unit: 'rpm', value: 100 }],
      expires_at: new Date(FUTURE).toISOString(),
      object: 'provider',
    };
    expect((await call('GET', `/v1/providers/${slug}?workspace_id=${stack.workspaceId}`)).body).toEqual(item);
    expect((await call('GET', `/v2/providers/${slug}`)).body).toEqual(item);
    expect((await call('GET', `/v1/providers/${slug}`, undefined, wsKey)).body).toEqual(item);
    const list = await call('GET', `/v1/providers?workspace_id=ws-default`);
    expect(list.body).toMatchObject({ object: 'list' });
    expect(list.body.data).toContainEqual(item);

    const upd = await call('PUT', `/v1/providers/${slug}?workspace_id=${stack.workspaceId}`, { name: 'Renamed', rate_limits: null, expires_at: null, reset_usage: true });
    expect(upd).toMatchObject({ status: 200, body: { id, slug } });
    expect((await call('GET', `/v1/providers/${slug}`)).body).toMatchObject({ name: 'Renamed', rate_limits: null, expires_at: null, reset_usage: 0 });

    expect(await call('DELETE', `/v1/providers/${slug}`, undefined, wsKey)).toMatchObject({ status: 200, body: {} });
    expect((await call('GET', `/v1/providers/${slug}`)).status).toBe(404);

    const changes = await sql('select resource_type, resource_key, action from resource_change where resource_id = ? order by version', [id]);
    const key = `${stack.workspaceId}:${slug}`;
    expect(changes.every((c: any) => c.resource_type === 'provider' && c.resource_key === key)).toBe(true);
    expect(changes.map((c: any) => c.action).at(-1)).toBe('delete');
    expect(changes.length).toBeGreaterThanOrEqual(3);
    const audit = await sql('select action from audit_event where target_id = ? order by created_at', [id]);
    expect(audit.map((a: any) => a.action)).toEqual(['provider.create', 'provider.update', 'provider.delete']);
  });

  it('a workspace may build a provider only on an integration it may use', async () => {
    const r = await call('POST', '/v1/providers', { name: 'x', integration_id: integ.slug, workspace_id: otherWs.id });
    expect([r.status, r.body.error.code, r.body.error.param]).toEqual([400, 'integration_not_enabled', 'integration_id']);
    const missing = await call('POST', '/v1/providers', { name: 'x', integration_id: 'nope', workspace_id: otherWs.id });
    expect([missing.status, missing.body.error.param]).toEqual([404, 'integration_id']);
    // Global access reaches every workspace.
    await call('PUT', `/v1/integrations/${integ.slug}/workspaces`, { global_workspace_access: { enabled: true }, create_default_provider: false });
    expect((await call('POST', '/v1/providers', { name: 'x', integration_id: integ.id, workspace_id: otherWs.id })).status).toBe(200);
    await call('PUT', `/v1/integrations/${integ.slug}/workspaces`, { global_workspace_access: { enabled: false }, create_default_provider: false });
  });

  it('enforces the 255-character limits, the slug pattern, one slug per workspace, and the workspace rules', async () => {
    const long = await call('POST', '/v1/providers', { name: 'n'.repeat(256), integration_id: integ.slug, workspace_id: stack.workspaceId });
    expect([long.status, long.body.error.param]).toEqual([400, 'name']);
    const longSlug = await call('POST', '/v1/providers', { name: 'n', slug: 's'.repeat(256), integration_id: integ.slug, workspace_id: stack.workspaceId });
    expect([longSlug.status, longSlug.body.error.param]).toEqual([400, 'slug']);
    expect((await call('POST', '/v1/providers', { name: 'n', slug: 's'.repeat(255), integration_id: integ.slug, workspace_id: stack.workspaceId })).status).toBe(200);
    expect((await call('POST', '/v1/providers', { name: 'n', slug: 'a b', integration_id: integ.slug, workspace_id: stack.workspaceId })).body.error.param).toBe('slug');
    expect((await call('POST', '/v1/providers', { name: 'n', slug: 'dup', integration_id: integ.slug }, wsKey)).status).toBe(200);
    const dup = await call('POST', '/v1/providers', { name: 'n', slug: 'dup', integration_id: integ.slug, workspace_id: stack.workspaceId });
    expect([dup.status, dup.body.error.code]).toEqual([409, 'slug_taken']);
    const noWs = await call('POST', '/v1/providers', { name: 'n', integration_id: integ.slug });
    expect([noWs.status, noWs.body.error.param]).toEqual([400, 'workspace_id']);
    const otherKey = await call('POST', '/v1/providers', { name: 'n', integration_id: integ.slug, workspace_id: otherWs.id }, wsKey);
    expect(otherKey.status).toBe(403);
    const past = await call('POST', '/v1/providers', { name: 'n', integration_id: integ.slug, workspace_id: stack.workspaceId, expires_at: '2020-01-01T00:00:00Z' });
    expect([past.status, past.body.error.param]).toEqual([400, 'expires_at']);
    const badLimit = await call('POST', '/v1/providers', { name: 'n', integration_id: integ.slug, workspace_id: stack.workspaceId, rate_limits: { type: 'requests', unit: 'rps', value: 1 } });
    expect(badLimit.status).toBe(400);
    expect((await call('POST', '/v1/providers', { integration_id: integ.slug, workspace_id: stack.workspaceId })).body.error.param).toBe('name');
  });

  it('answers `expired` past expires_at, and finds a slug across workspaces only when unambiguous', async () => {
    const p = (await call('POST', '/v1/providers', { name: 'exp', slug: 'exp', integration_id: integ.slug, workspace_id: stack.workspaceId, expires_at: FUTURE })).body;
    await sql("update provider set expires_at = now() - interval '1 minute' where id = ?", [p.id]);
    expect((await call('GET', '/v1/providers/exp')).body.status).toBe('expired');
    // The same slug in another workspace (a workspace-scoped integration's default provider).
    await call('POST', '/v1/integrations', { name: 'Other ws', ai_provider_id: 'openai', workspace_id: otherWs.id, default_provider_slug: 'exp' });
    const ambiguous = await call('GET', '/v1/providers/exp');
    expect([ambiguous.status, ambiguous.body.error.param]).toEqual([400, 'workspace_id']);
    expect((await call('GET', `/v1/providers/exp?workspace_id=${otherWs.slug}`)).body.workspace_id).toBe(otherWs.id);
    // A workspace key sees only its own workspace's.
    expect((await call('GET', '/v1/providers/exp', undefined, wsKey)).body.workspace_id).toBe(stack.workspaceId);
    expect((await call('GET', '/v1/providers', undefined, wsKey)).body.data.every((x: any) => x.workspace_id === stack.workspaceId)).toBe(true);
  });

  it('pages the list (default 50)', async () => {
    const all = await call('GET', '/v1/providers');
    expect(all.body.data.length).toBe(Math.min(all.body.total, 50));
    const p1 = await call('GET', '/v1/providers?page_size=1&current_page=1');
    expect(p1.body.data).toEqual([all.body.data[1]]);
    expect((await call('GET', '/v1/providers?page_size=0')).body.error.param).toBe('page_size');
  });

  it('lists the models reachable through providers (draft route GET /providers/models)', async () => {
    const i = (await call('POST', '/v1/integrations', { name: 'Models', ai_provider_id: 'anthropic', workspace_id: otherWs.id, default_provider_slug: 'claude' })).body;
    await call('PUT', `/v1/integrations/${i.slug}/models`, { models: [{ slug: 'claude-x', enabled: true }, { slug: 'claude-off', enabled: false }, { slug: 'my-ft', enabled: true, is_custom: true }] });
    const r = await call('GET', `/v1/providers/models?workspace_id=${otherWs.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      object: 'list',
      total: 2,
      data: [
        { id: '@claude/claude-x', slug: 'claude-x', provider: 'claude', workspace_id: otherWs.id, integration_id: i.slug, ai_provider_id: 'anthropic', is_custom: false, allow_all_models: true, object: 'model' },
        { id: '@claude/my-ft', slug: 'my-ft', provider: 'claude', workspace_id: otherWs.id, integration_id: i.slug, ai_provider_id: 'anthropic', is_custom: true, allow_all_models: true, object: 'model' },
      ],
    });
    expect((await call('GET', '/v1/providers/models', undefined, wsKey)).body.data.some((m: any) => m.workspace_id === otherWs.id)).toBe(false);
  });

  it('works through GraphQL', async () => {
    const c = await gql('mutation($input: CreateProviderInput!) { createProvider(input: $input) { __typename ... on ProviderChange { id slug } ... on GatewayError { code param } } }', {
      input: { name: 'GQL', slug: 'gql-prov', integration_id: integ.slug, workspace_id: stack.workspaceId },
    });
    expect(c.body.data.createProvider).toMatchObject({ __typename: 'ProviderChange', slug: 'gql-prov' });
    const got = await gql('query { provider(id: "gql-prov") { slug integration_id status object } }', {}, wsKey);
    expect(got.body.data.provider).toEqual({ slug: 'gql-prov', integration_id: integ.slug, status: 'active', object: 'provider' });
    const bad = await gql('mutation($input: CreateProviderInput!) { createProvider(input: $input) { __typename ... on GatewayError { code param status } } }', {
      input: { name: 'GQL', slug: 'gql-prov', integration_id: integ.slug, workspace_id: stack.workspaceId },
    });
    expect(bad.body.data.createProvider).toEqual({ __typename: 'GatewayError', code: 'slug_taken', param: 'slug', status: 409 });
  });
});
