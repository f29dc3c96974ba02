import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { Migration0010DeploymentsMcp } from '../../src/persistence/migrations/0010-deployments-mcp.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { graphqlCall, restCall } from '../support/api.ts';

// MCP integrations (issue 4 item 8; control-plane-schemas 2.18) over REST and GraphQL.

let stack: Stack;
let base: string;
let adminKeyId: string;
/** Workspace key of ws-default with every mcp_integrations and mcp_servers scope. */
let wsKey: string;
let readOnlyKey: string;
let otherWs: { id: string; slug: string };

const sql = <T = any>(q: string, params: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, params);

const call = restCall(() => base, () => stack.adminKey);

const gql = graphqlCall(() => base, () => stack.adminKey);

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ERR = '... on GatewayError { message code type param status }';
const SECRET = 'Bearer sk-upstream-0123456789abcdef';
const MASKED = '********cdef';

let seq = 0;
async function makeIntegration(extra: Record<string, unknown> = {}, key = stack.adminKey) {
  const r = await call('POST', '/v1/mcp-integrations', { name: `Int ${++seq}`, url: 'https://mcp.example.test/mcp', auth_type: 'none', transport: 'http', ...extra }, key);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { id: string; slug: string };
}

const MCP_SCOPES = ['create', 'read', 'update', 'delete', 'list'].flatMap((a) => [`mcp_integrations.${a}`, `mcp_servers.${a}`]);

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  base = stack.controlPlane.httpUrl;
  adminKeyId = (await sql<{ id: string }>("select id from api_key where creation_mode = 'bootstrap'"))[0]!.id;
  wsKey = (await stack.createKey({ name: 'mcp ws', workspace_id: 'ws-default', scopes: MCP_SCOPES })).key;
  readOnlyKey = (await stack.createKey({ name: 'mcp ro', workspace_id: 'ws-default', scopes: ['mcp_integrations.read', 'mcp_integrations.list'] })).key;
  const ws = await call('POST', '/v1/admin/workspaces', { name: 'Mcp Other' });
  expect(ws.status).toBe(200);
  otherWs = ws.body;
});
afterAll(async () => stack?.close());

describe('MCP integrations over REST', () => {
  it('creates an organisation integration with sealed, masked credentials; gets, lists, updates and deletes it', async () => {
    const created = await call('POST', '/v1/mcp-integrations', {
      name: 'Linear',
      url: 'https://mcp.linear.test/mcp',
      auth_type: 'headers',
      transport: 'http',
      description: 'Issues',
      configurations: { custom_headers: { Authorization: SECRET, 'X-Short': 'abc' }, passthrough_header: { 'x-user': 'x-upstream-user' }, region: 'eu' },
      secret_mappings: [{ target_field: 'configurations.token', secret_reference_id: 'ref-1' }],
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ id: expect.stringMatching(UUID_RE), slug: expect.stringMatching(/^mcp-linear-[0-9a-f]{6}$/) });
    const { id, slug } = created.body;

    // At rest: the masked copy and the sealed full value, bound to the row.
    const [row] = await sql('select configurations, configurations_sealed from mcp_integration where id = ?', [id]);
    expect(JSON.stringify(row.configurations)).not.toContain('sk-upstream');
    expect(row.configurations_sealed).not.toContain('sk-upstream');
    expect(JSON.parse(stack.secretBox.open(row.configurations_sealed, `mcp_integration:${id}`)).custom_headers.Authorization).toBe(SECRET);

    const item = {
      id,
      name: 'Linear',
      description: 'Issues',
      owner_id: adminKeyId,
      status: 'active',
      created_at: ISO,
      last_updated_at: ISO,
      configurations: { custom_headers: { Authorization: MASKED, 'X-Short': '********' }, passthrough_header: { 'x-user': 'x-upstream-user' }, region: 'eu' },
      global_workspace_access: null,
      organisation_id: stack.organisationId,
      workspace_id: null,
      slug,
      url: 'https://mcp.linear.test/mcp',
      auth_type: 'headers',
      transport: 'http',
      type: 'organisation',
      secret_mappings: [{ target_field: 'configurations.token', secret_reference_id: 'ref-1' }],
    };
    for (const ref of [id, slug]) expect(await call('GET', `/v1/mcp-integrations/${ref}`)).toEqual({ status: 200, body: item });
    expect(await call('GET', `/v2/mcp-integrations/${id}`)).toEqual({ status: 200, body: item });

    const list = await call('GET', '/v1/mcp-integrations?type=organisation');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ data: expect.arrayContaining([{ ...item, workspaces_count: 0 }]), total: list.body.data.length, has_more: false });

    // A secret sent back as its mask keeps the stored value; a new one replaces it.
    const upd = await call('PUT', `/v1/mcp-integrations/${slug}`, { name: 'Linear 2', configurations: { ...item.configurations, custom_headers: { Authorization: MASKED, 'X-Short': 'new-value' } } });
    expect(upd).toEqual({ status: 200, body: {} });
    const [after] = await sql('select name, configurations_sealed from mcp_integration where id = ?', [id]);
    expect(after.name).toBe('Linear 2');
    expect(JSON.parse(stack.secretBox.open(after.configurations_sealed, `mcp_integration:${id}`)).custom_headers).toEqual({ Authorization: SECRET, 'X-Short': 'new-value' });

    expect(await call('DELETE', `/v1/mcp-integrations/${id}`)).toEqual({ status: 200, body: {} });
    expect((await call('GET', `/v1/mcp-integrations/${id}`)).status).toBe(404);

    const audit = await sql('select action, actor_id, request_details from audit_event where target_id = ? order by created_at', [id]);
    expect(audit.map((a: any) => a.action)).toEqual(['mcp_integration.create', 'mcp_integration.update', 'mcp_integration.delete']);
    expect(audit.every((a: any) => !JSON.stringify(a.request_details).includes('sk-upstream'))).toBe(true);
  });

  it('names the bad field in 400s and refuses taken slugs', async () => {
    const good = { name: 'X', url: 'https://mcp.example.test', auth_type: 'none', transport: 'http' };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...good, url: undefined }, 'url'],
      [{ ...good, url: 'ftp://x.test' }, 'url'],
      [{ ...good, auth_type: 'basic' }, 'auth_type'],
      [{ ...good, transport: 'stdio' }, 'transport'],
      [{ ...good, slug: 'bad slug' }, 'slug'],
      [{ ...good, configurations: { custom_headers: { a: 1 } } }, 'configurations.custom_headers.a'],
      [{ ...good, secret_mappings: [{ target_field: 'configurations.a', secret_reference_id: 'r' }, { target_field: 'configurations.a', secret_reference_id: 's' }] }, 'secret_mappings[1].target_field'],
      [{ ...good, secret_mappings: [{ target_field: 'key', secret_reference_id: 'r' }] }, 'secret_mappings[0].target_field'],
      [{ ...good, extra: 1 }, 'extra'],
    ];
    for (const [body, param] of cases) {
      const r = await call('POST', '/v1/mcp-integrations', body);
      expect(r.status, param).toBe(400);
      expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param });
    }
    await makeIntegration({ slug: 'taken-slug' });
    expect((await call('POST', '/v1/mcp-integrations', { ...good, slug: 'taken-slug' })).body.error).toMatchObject({ code: 'slug_taken', param: 'slug' });
    expect((await call('POST', '/v1/mcp-integrations', { ...good, workspace_id: 'ws-nope' })).body.error).toMatchObject({ code: 'not_found', param: 'workspace_id' });
    expect((await call('POST', '/v1/mcp-integrations', { ...good, organisation_id: crypto.randomUUID() })).status).toBe(404);
    expect((await call('PUT', '/v1/mcp-integrations/taken-slug', { transport: 'ws' })).body.error.param).toBe('transport');
    expect((await call('GET', '/v1/mcp-integrations?type=bogus')).body.error.param).toBe('type');
    expect((await call('GET', '/v1/mcp-integrations?page_size=1001')).body.error.param).toBe('page_size');
  });

  it('keeps workspace keys to their workspace and what is shared with it', async () => {
    const own = await makeIntegration({}, wsKey);
    const [row] = await sql('select workspace_id from mcp_integration where id = ?', [own.id]);
    expect(row.workspace_id).toBe(stack.workspaceId);
    const org = await makeIntegration();
    const other = await makeIntegration({ workspace_id: otherWs.id });

    // Not shared yet: invisible to the workspace key.
    expect((await call('GET', `/v1/mcp-integrations/${org.id}`, undefined, wsKey)).status).toBe(404);
    expect((await call('GET', `/v1/mcp-integrations/${other.id}`, undefined, wsKey)).status).toBe(404);
    let ids = (await call('GET', '/v1/mcp-integrations', undefined, wsKey)).body.data.map((i: any) => i.id);
    expect(ids).toContain(own.id);
    expect(ids).not.toContain(org.id);
    expect(ids).not.toContain(other.id);

    // Shared with ws-default: readable, not changeable (organisation-level needs an organisation key).
    expect((await call('PUT', `/v1/mcp-integrations/${org.id}/workspaces`, { workspaces: [{ id: 'ws-default', enabled: true }] })).body).toEqual({ success: true });
    expect((await call('GET', `/v1/mcp-integrations/${org.id}`, undefined, wsKey)).status).toBe(200);
    ids = (await call('GET', '/v1/mcp-integrations', undefined, wsKey)).body.data.map((i: any) => i.id);
    expect(ids).toContain(org.id);
    expect((await call('GET', '/v1/mcp-integrations?type=workspace', undefined, wsKey)).body.data.map((i: any) => i.id)).not.toContain(org.id);
    expect((await call('PUT', `/v1/mcp-integrations/${org.id}`, { name: 'no' }, wsKey)).body.error).toMatchObject({ code: 'other_workspace' });
    expect((await call('PUT', `/v1/mcp-integrations/${own.id}`, { name: 'mine' }, wsKey)).status).toBe(200);
    expect((await call('POST', '/v1/mcp-integrations', { name: 'x', url: 'https://a.test', auth_type: 'none', transport: 'sse', workspace_id: otherWs.id }, wsKey)).status).toBe(403);

    // An organisation key's workspace_id filter: what that workspace may use.
    const inOther = (await call('GET', `/v1/mcp-integrations?workspace_id=${otherWs.slug}`)).body.data.map((i: any) => i.id);
    expect(inOther).toContain(other.id);
    expect(inOther).not.toContain(org.id);

    // Scopes.
    expect((await call('POST', '/v1/mcp-integrations', { name: 'x', url: 'https://a.test', auth_type: 'none', transport: 'http' }, readOnlyKey)).body.error.code).toBe('missing_scope');
    expect((await call('GET', '/v1/mcp-integrations')).status).toBe(200);
    expect((await call('GET', '/v1/mcp-integrations', undefined, null)).status).toBe(401);
  });

  it('sets and lists workspace access in both envelopes, merged or overriding', async () => {
    const i = await makeIntegration();
    let legacy = await call('GET', `/v1/mcp-integrations/${i.slug}/workspaces`);
    expect(legacy.status).toBe(200);
    expect(legacy.body.global_workspace_access).toBeNull();
    expect(legacy.body.workspaces).toEqual(expect.arrayContaining([{ id: stack.workspaceId, enabled: false, status: 'active', created_at: ISO, last_updated_at: ISO }]));

    expect((await call('PUT', `/v1/mcp-integrations/${i.id}/workspaces`, { workspaces: [{ id: otherWs.slug, enabled: true }], global_workspace_access: { enabled: true } })).body).toEqual({ success: true });
    const versioned = await call('GET', `/v1/mcp-integrations/${i.id}/workspaces?version=2`);
    expect(versioned.body).toEqual({ data: expect.any(Array), global_workspace_access: { enabled: true }, total: versioned.body.data.length });
    expect(versioned.body.data.find((w: any) => w.id === stack.workspaceId).enabled).toBe(true); // from global access
    expect(versioned.body.data.find((w: any) => w.id === otherWs.id).enabled).toBe(true);
    expect((await call('GET', '/v1/mcp-integrations')).body.data.find((x: any) => x.id === i.id).workspaces_count).toBe(1);

    // A row overrides global access; merged by default.
    await call('PUT', `/v1/mcp-integrations/${i.id}/workspaces`, { workspaces: [{ id: stack.workspaceId, enabled: false }] });
    legacy = await call('GET', `/v1/mcp-integrations/${i.id}/workspaces`);
    expect(legacy.body.workspaces.find((w: any) => w.id === stack.workspaceId).enabled).toBe(false);
    expect(await sql('select workspace_id, enabled from mcp_integration_workspace where integration_id = ? order by enabled', [i.id])).toEqual([
      { workspace_id: stack.workspaceId, enabled: false },
      { workspace_id: otherWs.id, enabled: true },
    ]);
    // override_existing_workspace_access replaces every row.
    await call('PUT', `/v1/mcp-integrations/${i.id}/workspaces`, { workspaces: [], override_existing_workspace_access: true, global_workspace_access: null });
    expect(await sql('select * from mcp_integration_workspace where integration_id = ?', [i.id])).toEqual([]);
    expect((await call('GET', `/v1/mcp-integrations/${i.id}`)).body.global_workspace_access).toBeNull();

    expect((await call('PUT', `/v1/mcp-integrations/${i.id}/workspaces`, { workspaces: [{ id: 'ws-missing', enabled: true }] })).body.error).toMatchObject({ param: 'workspaces[0].id', code: 'not_found' });
    expect((await call('PUT', `/v1/mcp-integrations/${i.id}/workspaces`, { workspaces: [{ id: 'x' }] })).body.error.param).toBe('workspaces[0].enabled');
    const wsLevel = await makeIntegration({ workspace_id: stack.workspaceId });
    expect((await call('PUT', `/v1/mcp-integrations/${wsLevel.id}/workspaces`, { workspaces: [] })).body.error.code).toBe('workspace_integration');
    expect((await call('PUT', `/v1/mcp-integrations/${i.id}/workspaces`, { workspaces: [] }, wsKey)).status).toBe(404);
  });

  it('records synced capabilities and metadata; pages, filters, counts and toggles them', async () => {
    const i = await makeIntegration();
    expect((await call('GET', `/v1/mcp-integrations/${i.id}/metadata`)).body).toEqual({
      server_name: null, server_version: null, protocol_version: null, capability_flags: null, sync_status: null, last_synced_at: null, sync_error: null,
    });
    const synced = await call('POST', `/v1/mcp-integrations/${i.id}/sync`, {
      server_name: 'Upstream',
      server_version: '1.2.0',
      protocol_version: '2025-06-18',
      capability_flags: { tools: { listChanged: true } },
      tools: [
        { name: 'search', description: 'Search', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
        { name: 'create_issue', title: 'Create issue', input_schema: { type: 'object', properties: { title: { type: 'string' } } } },
      ],
      prompts: [{ name: 'summarise', arguments: [{ name: 'text' }] }],
      resources: [{ name: 'readme', uri: 'file:///readme', mimeType: 'text/markdown', size: 12 }],
      resource_templates: [{ name: 'file', uriTemplate: 'file:///{path}' }],
    });
    expect(synced.status).toBe(200);
    expect(synced.body).toEqual({ success: true, counts: { tools: { total: 2, enabled: 2 }, prompts: { total: 1, enabled: 1 }, resources: { total: 1, enabled: 1 }, resource_templates: { total: 1, enabled: 1 } } });
    expect((await call('GET', `/v1/mcp-integrations/${i.id}/metadata`)).body).toEqual({
      server_name: 'Upstream', server_version: '1.2.0', protocol_version: '2025-06-18', capability_flags: { tools: { listChanged: true } }, sync_status: 'synced', last_synced_at: ISO, sync_error: null,
    });

    const all = await call('GET', `/v1/mcp-integrations/${i.id}/capabilities`);
    expect(all.body.total).toBe(5);
    expect(all.body.has_more).toBe(false);
    const search = all.body.data.find((c: any) => c.name === 'search');
    expect(search).toEqual({
      name: 'search', type: 'tool', title: null, description: 'Search', icons: null, enabled: true, created_at: ISO, last_updated_at: ISO,
      input_schema: { type: 'object' }, output_schema: null, execution: null, annotations: { readOnlyHint: true }, arguments: null, uri: null, uri_template: null, mime_type: null, size: null,
    });
    expect(all.body.data.find((c: any) => c.name === 'readme')).toMatchObject({ type: 'resource', uri: 'file:///readme', mime_type: 'text/markdown', size: 12 });
    expect(all.body.data.find((c: any) => c.name === 'file')).toMatchObject({ type: 'resource_template', uri_template: 'file:///{path}' });

    const page1 = await call('GET', `/v1/mcp-integrations/${i.id}/capabilities?type=tool&page=1&page_size=1`);
    expect(page1.body).toMatchObject({ total: 2, has_more: true, counts: { tools: { total: 2 } } });
    expect(page1.body.data).toHaveLength(1);
    const page2 = await call('GET', `/v1/mcp-integrations/${i.id}/capabilities?type=tool&page=2&page_size=1`);
    expect(page2.body.has_more).toBe(false);
    expect(page2.body.data[0].name).not.toBe(page1.body.data[0].name);
    expect((await call('GET', `/v1/mcp-integrations/${i.id}/capabilities?page=0`)).body.error.param).toBe('page');
    expect((await call('GET', `/v1/mcp-integrations/${i.id}/capabilities?page_size=501`)).body.error.param).toBe('page_size');
    expect((await call('GET', `/v1/mcp-integrations/${i.id}/capabilities?type=widget`)).body.error.param).toBe('type');

    expect((await call('PUT', `/v1/mcp-integrations/${i.id}/capabilities`, { capabilities: [{ name: 'search', type: 'tool', enabled: false }] })).body).toEqual({ success: true });
    const counts = (await call('GET', `/v1/mcp-integrations/${i.id}/capabilities`)).body.counts;
    expect(counts.tools).toEqual({ total: 2, enabled: 1 });
    expect((await call('PUT', `/v1/mcp-integrations/${i.id}/capabilities`, { capabilities: [{ name: 'nope', type: 'tool', enabled: false }] })).body.error.param).toBe('capabilities[0].name');
    expect((await call('PUT', `/v1/mcp-integrations/${i.id}/capabilities`, { capabilities: [] })).body.error.param).toBe('capabilities');

    // A later sync keeps the flags of names that stay and drops the ones gone.
    await call('POST', `/v1/mcp-integrations/${i.id}/sync`, { tools: [{ name: 'search' }] });
    const tools = (await call('GET', `/v1/mcp-integrations/${i.id}/capabilities?type=tool`)).body.data;
    expect(tools.map((c: any) => [c.name, c.enabled])).toEqual([['search', false]]);
    const failed = await call('POST', `/v1/mcp-integrations/${i.id}/sync`, { sync_error: 'upstream 500' });
    expect(failed.status).toBe(200);
    expect((await call('GET', `/v1/mcp-integrations/${i.id}/metadata`)).body).toMatchObject({ sync_status: 'failed', sync_error: 'upstream 500', server_name: 'Upstream' });
    expect((await call('POST', `/v1/mcp-integrations/${i.id}/sync`, { tools: [{ name: 'a' }, { name: 'a' }] })).body.error.param).toBe('tools[1].name');
  });

  it('refuses to delete an integration MCP servers use', async () => {
    const i = await makeIntegration({ workspace_id: stack.workspaceId });
    const s = await call('POST', '/v1/mcp-servers', { name: 'Srv', mcp_integration_id: i.slug, workspace_id: stack.workspaceId });
    expect(s.status).toBe(200);
    const del = await call('DELETE', `/v1/mcp-integrations/${i.id}`);
    expect(del.status).toBe(409);
    expect(del.body.error).toMatchObject({ code: 'mcp_integration_in_use', param: 'id' });
    expect(del.body.error.message).toContain(s.body.slug);
    expect(await call('DELETE', `/v1/mcp-servers/${s.body.id}`)).toEqual({ status: 200, body: {} });
    expect((await call('DELETE', `/v1/mcp-integrations/${i.id}`)).status).toBe(200);
  });
});

describe('MCP integrations over GraphQL', () => {
  it('creates, reads, lists, syncs, toggles and deletes with typed errors', async () => {
    const created = await gql(`mutation($input: CreateMcpIntegrationInput!) { createMcpIntegration(input: $input) { __typename ... on McpCreated { id slug } ${ERR} } }`, {
      input: { name: 'Gql', url: 'https://gql.mcp.test/mcp', auth_type: 'oauth_auto', transport: 'sse', slug: 'gql-int', configurations: { client_secret: 'cs-0123456789abcdefXYZ' } },
    });
    expect(created.body.data.createMcpIntegration).toEqual({ __typename: 'McpCreated', id: expect.stringMatching(UUID_RE), slug: 'gql-int' });
    const id = created.body.data.createMcpIntegration.id;

    const read = await gql(`query($id: ID!) { mcpIntegration(id: $id) { id slug type transport configurations workspace_id } mcpIntegrationMetadata(id: $id) { sync_status } }`, { id: 'gql-int' });
    expect(read.body.data).toEqual({ mcpIntegration: { id, slug: 'gql-int', type: 'organisation', transport: 'sse', configurations: { client_secret: '********fXYZ' }, workspace_id: null }, mcpIntegrationMetadata: { sync_status: null } });

    const bad = await gql(`mutation($input: CreateMcpIntegrationInput!) { createMcpIntegration(input: $input) { __typename ${ERR} } }`, { input: { name: 'x', url: 'nope', auth_type: 'none', transport: 'http' } });
    expect(bad.body.errors).toBeUndefined();
    expect(bad.body.data.createMcpIntegration).toMatchObject({ __typename: 'GatewayError', code: 'invalid_parameter', param: 'url', status: 400 });

    const sync = await gql(`mutation($id: ID!, $input: SyncMcpIntegrationInput!) { syncMcpIntegration(id: $id, input: $input) { __typename ... on McpSyncResult { success counts { tools { total enabled } } } } }`, {
      id,
      input: { server_name: 'G', tools: [{ name: 't1' }, { name: 't2' }] },
    });
    expect(sync.body.data.syncMcpIntegration).toEqual({ __typename: 'McpSyncResult', success: true, counts: { tools: { total: 2, enabled: 2 } } });
    const toggle = await gql(`mutation($id: ID!, $input: UpdateMcpCapabilitiesInput!) { updateMcpIntegrationCapabilities(id: $id, input: $input) { __typename ... on McpSuccess { success } } }`, {
      id,
      input: { capabilities: [{ name: 't2', type: 'tool', enabled: false }] },
    });
    expect(toggle.body.data.updateMcpIntegrationCapabilities.success).toBe(true);
    const caps = await gql(`query($id: ID!) { mcpIntegrationCapabilities(id: $id, page: 1, page_size: 10) { total has_more counts { tools { enabled } } data { name enabled } } }`, { id });
    expect(caps.body.data.mcpIntegrationCapabilities).toEqual({ total: 2, has_more: false, counts: { tools: { enabled: 1 } }, data: [{ name: 't1', enabled: true }, { name: 't2', enabled: false }] });

    const access = await gql(`mutation($id: ID!, $input: UpdateMcpIntegrationWorkspacesInput!) { updateMcpIntegrationWorkspaces(id: $id, input: $input) { __typename ... on McpSuccess { success } } }`, {
      id,
      input: { workspaces: [{ id: 'ws-default', enabled: true }], global_workspace_access: { enabled: false } },
    });
    expect(access.body.data.updateMcpIntegrationWorkspaces.success).toBe(true);
    const wss = await gql(`query($id: ID!) { mcpIntegrationWorkspaces(id: $id) { total global_workspace_access data { id enabled } } }`, { id });
    expect(wss.body.data.mcpIntegrationWorkspaces.global_workspace_access).toEqual({ enabled: false });
    expect(wss.body.data.mcpIntegrationWorkspaces.data).toContainEqual({ id: stack.workspaceId, enabled: true });

    const list = await gql(`{ mcpIntegrations(search: "gql-i", page_size: 5) { total has_more data { slug workspaces_count } } }`);
    expect(list.body.data.mcpIntegrations).toEqual({ total: 1, has_more: false, data: [{ slug: 'gql-int', workspaces_count: 1 }] });

    const upd = await gql(`mutation($id: ID!, $input: UpdateMcpIntegrationInput!) { updateMcpIntegration(id: $id, input: $input) { __typename ... on McpChanged { id } ${ERR} } }`, { id, input: { description: null, auth_type: 'headers' } });
    expect(upd.body.data.updateMcpIntegration).toEqual({ __typename: 'McpChanged', id });
    const denied = await gql(`mutation($id: ID!) { deleteMcpIntegration(id: $id) { __typename ${ERR} } }`, { id }, readOnlyKey);
    expect(denied.body.data.deleteMcpIntegration).toMatchObject({ __typename: 'GatewayError', code: 'missing_scope', status: 403 });
    const del = await gql(`mutation($id: ID!) { deleteMcpIntegration(id: $id) { __typename ... on McpChanged { id } } }`, { id });
    expect(del.body.data.deleteMcpIntegration).toEqual({ __typename: 'McpChanged', id });
    const gone = await gql(`query($id: ID!) { mcpIntegration(id: $id) { id } }`, { id });
    expect(gone.body.errors[0].extensions).toMatchObject({ code: 'not_found' });
  });
});

describe('migration 0010', () => {
  it('gives a bootstrap admin key from before it the new deployments and MCP scopes, once', async () => {
    const [key] = await sql<{ id: string; scopes: string[] }>("select id, scopes from api_key where creation_mode = 'bootstrap'");
    const older = key!.scopes.filter((x) => !/^(deployments|mcp_integrations|mcp_servers)\./.test(x));
    await sql('update api_key set scopes = ?::jsonb where id = ?', [JSON.stringify(older), key!.id]);
    const migration = new Migration0010DeploymentsMcp(stack.db.orm.em.getDriver(), stack.db.orm.config);
    await migration.up();
    const topUps = migration.getQueries().filter((q): q is string => typeof q === 'string' && q.startsWith('update api_key'));
    expect(topUps).toHaveLength(15);
    for (const q of [...topUps, ...topUps]) await sql(q);
    const [after] = await sql<{ scopes: string[] }>('select scopes from api_key where id = ?', [key!.id]);
    expect([...after!.scopes].sort()).toEqual([...key!.scopes].sort());
    expect(after!.scopes.filter((x) => x === 'mcp_servers.list')).toHaveLength(1);
  });
});
