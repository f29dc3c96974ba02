import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startStack, type Stack } from '../support/stack.ts';
import { restCallWithText } from '../support/api.ts';

let stack: Stack;
let base: string;
let wsKey: string;
let otherWs: { id: string; slug: string };

const sql = <T = any>(q: string, params: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, params);

const call = restCallWithText(() => base, () => stack.adminKey);

async function gql(query: string, variables: Record<string, unknown> = {}, key: string | null = stack.adminKey) {
  const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...(key ? { 'x-gateway-api-key': key } : {}) }, body: JSON.stringify({ query, variables }) });
  return { status: res.status, body: (await res.json()) as any };
}

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
const SECRET = 'azure-provider-key-0123456789abcdef';

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  base = stack.controlPlane.httpUrl;
  otherWs = (await call('POST', '/v1/admin/workspaces', { name: 'VK Other' })).body;
  wsKey = (await stack.createKey({ name: 'vk ws', workspace_id: 'ws-default', scopes: ['virtual_keys.create', 'virtual_keys.read', 'virtual_keys.update', 'virtual_keys.delete', 'virtual_keys.list'] })).key;
});
afterAll(async () => stack?.close());

describe('virtual keys over REST (legacy)', () => {
  it('creates → {success, data:{slug}}, gets the masked object, lists (paging required), updates and deletes → {}', async () => {
    const created = await call('POST', '/v1/virtual-keys', {
      name: 'Azure VK',
      provider: 'azure-openai',
      key: SECRET,
      resourceName: 'my-res',
      deploymentConfig: [{ apiVersion: '2024-06-01', deploymentName: 'gpt4o', is_default: true }],
      usage_limits: { credit_limit: 5, type: 'cost' },
      rate_limits: { type: 'tokens', unit: 'rph', value: 1000 },
    }, wsKey);
    expect(created.status, created.text).toBe(200);
    expect(created.body).toEqual({ success: true, data: { slug: expect.stringMatching(/^azure-vk-[0-9a-f]{6}$/) } });
    const { slug } = created.body.data;
    const [row] = await sql('select id, key_sealed, kind from provider where slug = ?', [slug]);
    expect(row.kind).toBe('virtual_key');
    expect(row.key_sealed).not.toContain(SECRET);
    expect(stack.secretBox.open(row.key_sealed, `provider:${row.id}:key`)).toBe(SECRET);

    const item = {
      id: row.id,
      workspace_id: stack.workspaceId,
      name: 'Azure VK',
      provider: 'azure-openai',
      masked_key: expect.stringMatching(/^az\*+ef$/),
      note: null,
      status: 'active',
      usage_limits: { credit_limit: 5, type: 'cost' },
      reset_usage: null,
      created_at: ISO,
      slug,
      model_config: { resourceName: 'my-res', deploymentConfig: [{ apiVersion: '2024-06-01', deploymentName: 'gpt4o', is_default: true }] },
      rate_limits: [{ type: 'tokens', unit: 'rph', value: 1000 }],
      expires_at: null,
      secret_mappings: null,
      object: 'virtual-key',
    };
    const got = await call('GET', `/v1/virtual-keys/${slug}`);
    expect(got.body).toEqual(item);
    expect(got.text).not.toContain(SECRET);

    expect((await call('GET', '/v1/virtual-keys')).body.error.param).toBe('current_page');
    expect((await call('GET', '/v1/virtual-keys?current_page=0')).body.error.param).toBe('page_size');
    const list = await call('GET', '/v1/virtual-keys?current_page=0&page_size=50', undefined, wsKey);
    expect(list.body).toEqual({ object: 'list', total: 1, data: [item] });

    const upd = await call('PUT', `/v1/virtual-keys/${slug}`, { key: 'rotated-provider-key-zzzzzzzz', note: 'n', secret_mappings: [{ target_field: 'model_config.resourceName', secret_reference_id: 'ref-1' }] }, wsKey);
    expect(upd).toMatchObject({ status: 200, body: {} });
    const [after] = await sql('select key_sealed from provider where id = ?', [row.id]);
    expect(stack.secretBox.open(after.key_sealed, `provider:${row.id}:key`)).toBe('rotated-provider-key-zzzzzzzz');
    expect((await call('GET', `/v1/virtual-keys/${slug}`)).body).toMatchObject({ note: 'n', secret_mappings: [{ target_field: 'model_config.resourceName', secret_reference_id: 'ref-1' }] });
    const badMap = await call('PUT', `/v1/virtual-keys/${slug}`, { secret_mappings: [{ target_field: 'configurations.x', secret_reference_id: 'r' }] });
    expect(badMap.body.error.param).toBe('secret_mappings[0].target_field');

    expect(await call('DELETE', `/v1/virtual-keys/${slug}`)).toMatchObject({ status: 200, body: {} });
    expect((await call('GET', `/v1/virtual-keys/${slug}`)).status).toBe(404);
    const changes = await sql('select resource_key, action from resource_change where resource_type = ? and resource_id = ? order by version', ['provider', row.id]);
    expect(changes.at(-1)).toEqual({ resource_key: `${stack.workspaceId}:${slug}`, action: 'delete' });
    const audit = await sql('select action, request_details::text as d from audit_event where target_id = ? order by created_at', [row.id]);
    expect(audit.map((a: any) => a.action)).toEqual(['virtual_key.create', 'virtual_key.update', 'virtual_key.delete']);
    for (const a of audit) expect(a.d).not.toMatch(/azure-provider-key|rotated-provider-key/);
  });

  it('validates and keeps workspaces apart; a 401 is the legacy body', async () => {
    expect((await call('POST', '/v1/virtual-keys', { name: 'x', provider: 'nope', workspace_id: stack.workspaceId })).body.error.param).toBe('provider');
    expect((await call('POST', '/v1/virtual-keys', { name: 'x'.repeat(256), provider: 'openai', workspace_id: stack.workspaceId })).body.error.param).toBe('name');
    expect((await call('POST', '/v1/virtual-keys', { name: 'x', provider: 'openai' })).body.error.param).toBe('workspace_id');
    expect((await call('POST', '/v1/virtual-keys', { name: 'x', provider: 'openai', workspace_id: otherWs.id }, wsKey)).status).toBe(403);
    const other = await call('POST', '/v1/virtual-keys', { name: 'other', provider: 'open-ai', key: 'k-123', workspace_id: otherWs.id });
    expect(other.status).toBe(200);
    expect((await call('GET', `/v1/virtual-keys/${other.body.data.slug}`)).body.provider).toBe('openai');
    expect((await call('GET', `/v1/virtual-keys/${other.body.data.slug}`, undefined, wsKey)).status).toBe(404);
    const unauth = await call('GET', '/v1/virtual-keys?current_page=0&page_size=10', undefined, 'bad-key');
    expect(unauth).toMatchObject({ status: 401, body: { success: false, data: { message: 'Unauthorised Request' } } });
  });

  it('migrates a virtual key to an integration and a provider with the same slug (draft route)', async () => {
    const vk = await call('POST', '/v1/virtual-keys', {
      name: 'To migrate',
      provider: 'azure-openai',
      key: SECRET,
      resourceName: 'mig-res',
      deploymentConfig: [{ apiVersion: '2024-06-01', deploymentName: 'dep-a', alias: 'gpt-4o', is_default: true }],
    }, wsKey);
    const slug = vk.body.data.slug;
    const [before] = await sql('select id from provider where slug = ?', [slug]);
    const needsScope = await call('POST', '/v1/virtual-keys/migrate', { slug }, wsKey);
    expect(needsScope.status).toBe(403);
    const m = await call('POST', '/v1/virtual-keys/migrate', { slug, workspace_id: stack.workspaceId });
    expect(m.status, m.text).toBe(200);
    expect(m.body).toEqual({ integration_id: expect.any(String), integration_slug: slug, provider_id: before.id, provider_slug: slug });
    // It is a provider now (same id and slug), no longer a virtual key.
    expect((await call('GET', `/v1/virtual-keys/${slug}`)).status).toBe(404);
    expect((await call('GET', `/v1/providers/${slug}`)).body).toMatchObject({ id: before.id, slug, integration_id: slug, object: 'provider' });
    const integ = (await call('GET', `/v1/integrations/${slug}`)).body;
    expect(integ).toMatchObject({ ai_provider_id: 'azure-openai', workspace_id: stack.workspaceId, masked_key: expect.stringMatching(/^az\*+ef$/) });
    expect(integ.configurations).toEqual({
      azure_auth_mode: 'default',
      azure_resource_name: 'mig-res',
      azure_deployment_config: [{ azure_api_version: '2024-06-01', azure_deployment_name: 'dep-a', azure_model_slug: 'gpt-4o', alias: 'gpt-4o', is_default: true }],
    });
    const [row] = await sql('select key_sealed from integration where id = ?', [m.body.integration_id]);
    expect(stack.secretBox.open(row.key_sealed, `integration:${m.body.integration_id}:key`)).toBe(SECRET);
    expect((await call('POST', '/v1/virtual-keys/migrate', { slug })).status).toBe(404);
  });

  it('works through GraphQL', async () => {
    const c = await gql('mutation($input: CreateVirtualKeyInput!) { createVirtualKey(input: $input) { __typename ... on VirtualKeyChange { slug } } }', { input: { name: 'GQL VK', provider: 'anthropic', key: SECRET } }, wsKey);
    const slug = c.body.data.createVirtualKey.slug;
    expect(slug).toMatch(/^gql-vk-/);
    const got = await gql('query($id: ID!) { virtualKey(id: $id) { provider masked_key object } }', { id: slug }, wsKey);
    expect(got.body.data.virtualKey).toEqual({ provider: 'anthropic', masked_key: expect.stringMatching(/^az\*+ef$/), object: 'virtual-key' });
    const list = await gql('{ virtualKeys(current_page: 0, page_size: 10) { total data { slug } } }', {}, wsKey);
    expect(list.body.data.virtualKeys.data.map((v: any) => v.slug)).toContain(slug);
  });
});
