import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createMcpServerResolver } from '../../src/services/mcp-servers/worker-resolver.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { restCall } from '../support/api.ts';

// MCP servers (issue 4 item 8; control-plane-schemas 2.18) over REST and GraphQL, their
// resource_change rows and the worker resolver the MCP gateway will use.

const GATEWAY = 'https://gw.example.test';
let stack: Stack;
let base: string;
let wsKey: string;
let userKey: string;
let userKeyOwner: string;
let otherWs: { id: string; slug: string };
/** A fake upstream MCP server on 127.0.0.1: records request headers, answers `initialize`. */
let upstream: Server;
let upstreamUrl: string;
const seen: Record<string, string | string[] | undefined>[] = [];

const sql = <T = any>(q: string, params: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, params);

const call = restCall(() => base, () => stack.adminKey);

async function gql(query: string, variables: Record<string, unknown> = {}, key: string | null = stack.adminKey) {
  const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-gateway-api-key': key! }, body: JSON.stringify({ query, variables }) });
  return (await res.json()) as any;
}

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ERR = '... on GatewayError { message code type param status }';

let seq = 0;
async function makeIntegration(extra: Record<string, unknown> = {}) {
  const r = await call('POST', '/v1/mcp-integrations', { name: `Up ${++seq}`, url: upstreamUrl, auth_type: 'headers', transport: 'http', workspace_id: stack.workspaceId, configurations: { custom_headers: { 'x-upstream-key': 'upstream-secret-0123456789' } }, ...extra });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { id: string; slug: string };
}
async function makeServer(integration: string, extra: Record<string, unknown> = {}, key = stack.adminKey) {
  const r = await call('POST', '/v1/mcp-servers', { name: `Server ${++seq}`, mcp_integration_id: integration, workspace_id: stack.workspaceId, ...extra }, key);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { id: string; slug: string };
}
async function addUser(first: string, member = true): Promise<string> {
  const id = crypto.randomUUID();
  await sql('insert into app_user (id, organisation_id, email, first_name, last_name, role) values (?, ?, ?, ?, ?, ?)', [id, stack.organisationId, `${first}-${id}@example.com`, first, 'Tester', 'member']);
  if (member) await sql('insert into workspace_member (id, workspace_id, user_id, role) values (?, ?, ?, ?)', [crypto.randomUUID(), stack.workspaceId, id, 'member']);
  return id;
}

beforeAll(async () => {
  upstream = createServer((req, res) => {
    seen.push(req.headers);
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.url === '/redirect') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end();
        return;
      }
      if (req.url === '/fail') {
        res.writeHead(503).end('down');
        return;
      }
      const rpc = JSON.parse(body || '{}');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: rpc.id, result: { protocolVersion: '2025-06-18', serverInfo: { name: 'fake-upstream', version: '0.1' }, capabilities: {} } }));
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`;
  stack = await startStack({ workers: 0, gatewayUrls: [GATEWAY] });
  base = stack.controlPlane.httpUrl;
  const scopes = ['create', 'read', 'update', 'delete', 'list'].flatMap((a) => [`mcp_integrations.${a}`, `mcp_servers.${a}`]);
  wsKey = (await stack.createKey({ name: 'srv ws', workspace_id: 'ws-default', scopes })).key;
  userKeyOwner = (await sql<{ id: string }>("select id from app_user where role = 'owner'"))[0]!.id;
  userKey = (await stack.createKey({ name: 'srv user', workspace_id: 'ws-default', user_id: userKeyOwner, scopes }, 'user')).key;
  const ws = await call('POST', '/v1/admin/workspaces', { name: 'Srv Other' });
  otherWs = ws.body;
});
afterAll(async () => {
  await stack?.close();
  await new Promise<void>((r) => upstream?.close(() => r()));
});

describe('MCP servers over REST', () => {
  it('creates, gets, lists with the gateway URL, updates and deletes a server', async () => {
    const i = await makeIntegration();
    const created = await call('POST', '/v1/mcp-servers', { name: 'Linear tools', mcp_integration_id: i.slug, workspace_id: 'ws-default', description: 'for agents' });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ id: expect.stringMatching(UUID_RE), slug: expect.stringMatching(/^mcp-linear-tools-[0-9a-f]{6}$/) });
    const { id, slug } = created.body;

    const item = {
      id,
      slug,
      name: 'Linear tools',
      status: 'active',
      description: 'for agents',
      created_at: ISO,
      last_updated_at: ISO,
      mcp_integration_id: i.id,
      workspace_id: stack.workspaceId,
      // The admin key is a service key: it sees the integration, secrets masked.
      mcp_integration_details: { id: i.id, slug: i.slug, status: 'active', configurations: { custom_headers: { 'x-upstream-key': '********6789' } }, url: upstreamUrl, transport: 'http', auth_type: 'headers' },
    };
    for (const ref of [id, slug]) expect(await call('GET', `/v1/mcp-servers/${ref}`)).toEqual({ status: 200, body: item });
    expect(await call('GET', `/v2/mcp-servers/${id}`)).toEqual({ status: 200, body: item });
    // User keys do not get the integration details.
    expect((await call('GET', `/v1/mcp-servers/${id}`, undefined, userKey)).body.mcp_integration_details).toBeNull();

    const list = await call('GET', `/v1/mcp-servers?id=${id}`);
    expect(list).toEqual({
      status: 200,
      body: {
        total: 1,
        data: [{
          ...item,
          organisation_id: stack.organisationId,
          owner_id: expect.any(String),
          mcp_integration_slug: i.slug,
          mcp_integration_url: upstreamUrl,
          auth_type: 'headers',
          workspace_name: expect.any(String),
          workspace_slug: 'ws-default',
          url: `${GATEWAY}/mcp/${slug}/mcp`,
        }],
      },
    });
    expect((await call('GET', '/v1/mcp-servers?search=linear%20TOOLS')).body.data.map((s: any) => s.id)).toEqual([id]);
    expect((await call('GET', `/v1/mcp-servers?workspace_id=${otherWs.id}`)).body).toEqual({ data: [], total: 0 });
    expect((await call('GET', '/v1/mcp-servers?page_size=101')).body.error.param).toBe('page_size');
    expect((await call('GET', '/v1/mcp-servers?id=nope')).body.error.param).toBe('id');

    expect(await call('PUT', `/v1/mcp-servers/${slug}`, { name: 'Renamed', description: null })).toEqual({ status: 200, body: {} });
    expect((await call('GET', `/v1/mcp-servers/${id}`)).body).toMatchObject({ name: 'Renamed', description: null });
    expect((await call('PUT', `/v1/mcp-servers/${id}`, { name: '' })).body.error.param).toBe('name');
    expect((await call('PUT', `/v1/mcp-servers/${id}`, { description: 'x'.repeat(501) })).body.error.param).toBe('description');

    expect(await call('DELETE', `/v1/mcp-servers/${id}`)).toEqual({ status: 200, body: {} });
    expect((await call('GET', `/v1/mcp-servers/${id}`)).status).toBe(404);
    const audit = await sql('select action from audit_event where target_id = ? order by created_at', [id]);
    expect(audit.map((a: any) => a.action)).toEqual(['mcp_server.create', 'mcp_server.update', 'mcp_server.delete']);
  });

  it('checks the body, the workspace and that the workspace may use the integration', async () => {
    const wsLevel = await makeIntegration();
    const orgLevel = await makeIntegration({ workspace_id: undefined });
    const cases: [Record<string, unknown>, string][] = [
      [{ mcp_integration_id: wsLevel.id }, 'name'],
      [{ name: 'x' }, 'mcp_integration_id'],
      [{ name: 'x', mcp_integration_id: wsLevel.id, slug: 'ab' }, 'slug'],
      [{ name: 'x', mcp_integration_id: wsLevel.id, slug: 'a'.repeat(51) }, 'slug'],
      [{ name: 'x', mcp_integration_id: wsLevel.id, slug: 'no spaces' }, 'slug'],
      [{ name: 'x'.repeat(256), mcp_integration_id: wsLevel.id }, 'name'],
    ];
    for (const [body, param] of cases) {
      const r = await call('POST', '/v1/mcp-servers', { workspace_id: stack.workspaceId, ...body });
      expect(r.status, param).toBe(400);
      expect(r.body.error.param).toBe(param);
    }
    expect((await call('POST', '/v1/mcp-servers', { name: 'x', mcp_integration_id: wsLevel.id })).body.error.param).toBe('workspace_id');
    expect((await call('POST', '/v1/mcp-servers', { name: 'x', mcp_integration_id: 'missing', workspace_id: stack.workspaceId })).body.error).toMatchObject({ code: 'not_found', param: 'mcp_integration_id' });
    // A workspace-level integration of another workspace, and an organisation one not shared.
    expect((await call('POST', '/v1/mcp-servers', { name: 'x', mcp_integration_id: wsLevel.id, workspace_id: otherWs.id })).body.error.code).toBe('mcp_integration_not_available');
    expect((await call('POST', '/v1/mcp-servers', { name: 'x', mcp_integration_id: orgLevel.id, workspace_id: stack.workspaceId })).body.error.code).toBe('mcp_integration_not_available');
    expect((await call('POST', '/v1/mcp-servers', { name: 'x', mcp_integration_id: orgLevel.id }, wsKey)).body.error).toMatchObject({ code: 'not_found', param: 'mcp_integration_id' });
    await call('PUT', `/v1/mcp-integrations/${orgLevel.id}/workspaces`, { workspaces: [], global_workspace_access: { enabled: true } });
    const viaWsKey = await makeServer(orgLevel.slug, { workspace_id: undefined, slug: 'shared-srv' }, wsKey);
    expect((await call('GET', `/v1/mcp-servers/${viaWsKey.id}`, undefined, wsKey)).body.workspace_id).toBe(stack.workspaceId);
    expect((await call('POST', '/v1/mcp-servers', { name: 'dup', mcp_integration_id: orgLevel.id, workspace_id: stack.workspaceId, slug: 'shared-srv' })).body.error).toMatchObject({ code: 'slug_taken', param: 'slug' });

    // Workspace keys: another workspace's server is not there; creating there is forbidden.
    await call('PUT', `/v1/mcp-integrations/${orgLevel.id}/workspaces`, { workspaces: [{ id: otherWs.id, enabled: true }] });
    const elsewhere = await makeServer(orgLevel.id, { workspace_id: otherWs.id });
    expect((await call('GET', `/v1/mcp-servers/${elsewhere.id}`, undefined, wsKey)).status).toBe(404);
    expect((await call('DELETE', `/v1/mcp-servers/${elsewhere.id}`, undefined, wsKey)).status).toBe(404);
    expect((await call('GET', '/v1/mcp-servers', undefined, wsKey)).body.data.map((s: any) => s.id)).not.toContain(elsewhere.id);
    expect((await call('POST', '/v1/mcp-servers', { name: 'x', mcp_integration_id: orgLevel.id, workspace_id: otherWs.id }, wsKey)).body.error.code).toBe('other_workspace');
    const noScope = (await stack.createKey({ name: 'srv ro', workspace_id: 'ws-default', scopes: ['mcp_servers.read'] })).key;
    expect((await call('GET', '/v1/mcp-servers', undefined, noScope)).body.error.code).toBe('missing_scope');
  });

  it('tests connectivity to the upstream with its credentials, without showing them', async () => {
    const i = await makeIntegration();
    const s = await makeServer(i.id);
    const ok = await call('POST', `/v1/mcp-servers/${s.slug}/test`);
    expect(ok).toEqual({ status: 200, body: { success: true, status_code: 200, response_time_ms: expect.any(Number), url: upstreamUrl, server_name: 'fake-upstream', error: null } });
    expect(seen.at(-1)!['x-upstream-key']).toBe('upstream-secret-0123456789');
    // The draft routes: testing the integration itself, and a server's metadata (its integration's).
    expect((await call('POST', `/v1/mcp-integrations/${i.slug}/test`)).body).toMatchObject({ success: true, server_name: 'fake-upstream', url: upstreamUrl });
    await call('POST', `/v1/mcp-integrations/${i.id}/sync`, { server_name: 'fake-upstream', server_version: '0.1' });
    expect((await call('GET', `/v1/mcp-servers/${s.id}/metadata`)).body).toMatchObject({ server_name: 'fake-upstream', server_version: '0.1', sync_status: 'synced' });

    await call('PUT', `/v1/mcp-integrations/${i.id}`, { url: upstreamUrl.replace('/mcp', '/fail') });
    const down = await call('POST', `/v1/mcp-servers/${s.id}/test`);
    await call('PUT', `/v1/mcp-integrations/${i.id}`, { url: upstreamUrl.replace('/mcp', '/redirect') });
    expect((await call('POST', `/v1/mcp-servers/${s.id}/test`)).body).toMatchObject({ success: false, status_code: 302, error: 'Upstream answered 302' });
    expect(down.body).toMatchObject({ success: false, status_code: 503, server_name: null, error: 'Upstream answered 503' });

    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    await call('PUT', `/v1/mcp-integrations/${i.id}`, { url: `http://127.0.0.1:${port}/mcp` });
    const unreachable = await call('POST', `/v1/mcp-servers/${s.id}/test`);
    expect(unreachable.body).toMatchObject({ success: false, status_code: null, response_time_ms: null, error: expect.stringContaining('Could not reach') });
    expect(JSON.stringify(unreachable.body)).not.toContain('upstream-secret');

    // Private and metadata addresses are not called unless trusted (TRUSTED_CUSTOM_HOSTS).
    await call('PUT', `/v1/mcp-integrations/${i.id}`, { url: 'http://169.254.169.254/latest/meta-data' });
    const metadata = await call('POST', `/v1/mcp-servers/${s.id}/test`);
    expect(metadata.body).toMatchObject({ success: false, status_code: null, url: 'http://169.254.169.254/latest/meta-data', error: expect.stringContaining('private or reserved') });
    await call('PUT', `/v1/mcp-integrations/${i.id}`, { url: 'http://localhost:1/mcp' });
    expect((await call('POST', `/v1/mcp-integrations/${i.id}/test`)).body.error).toContain('TRUSTED_CUSTOM_HOSTS');
  });

  it('lists and toggles capabilities at server level on top of the integration', async () => {
    const i = await makeIntegration();
    await call('POST', `/v1/mcp-integrations/${i.id}/sync`, { tools: [{ name: 'a' }, { name: 'b' }, { name: 'c' }], prompts: [{ name: 'p' }] });
    await call('PUT', `/v1/mcp-integrations/${i.id}/capabilities`, { capabilities: [{ name: 'c', type: 'tool', enabled: false }] });
    const s = await makeServer(i.id);
    expect((await call('PUT', `/v1/mcp-servers/${s.id}/capabilities`, { capabilities: [{ name: 'b', type: 'tool', enabled: false }, { name: 'c', type: 'tool', enabled: true }] })).body).toEqual({ success: true });
    const caps = await call('GET', `/v1/mcp-servers/${s.id}/capabilities?type=tool`);
    expect(caps.body.data.map((c: any) => [c.name, c.enabled, c.integration_enabled])).toEqual([['a', true, true], ['b', false, true], ['c', true, false]]);
    expect(caps.body).toMatchObject({ total: 3, has_more: false, counts: { tools: { total: 3, enabled: 2 }, prompts: { total: 1, enabled: 1 } } });
    expect((await call('GET', `/v1/mcp-servers/${s.id}/capabilities?page=2&page_size=2`)).body).toMatchObject({ total: 4, has_more: false, data: [expect.any(Object), expect.any(Object)] });
    expect((await call('PUT', `/v1/mcp-servers/${s.id}/capabilities`, { capabilities: [{ name: 'zzz', type: 'prompt', enabled: true }] })).body.error.param).toBe('capabilities[0].name');
    expect((await call('PUT', `/v1/mcp-servers/${s.id}/capabilities`, { capabilities: [{ name: 'a', type: 'resource_template', enabled: true }] })).body.error.param).toBe('capabilities[0].type');
  });

  it('lists and sets per-user access and the default policy', async () => {
    const i = await makeIntegration();
    const s = await makeServer(i.id);
    const ann = await addUser('Ann');
    const bob = await addUser('Bob');
    const outsider = await addUser('Cy', false);
    await sql('insert into mcp_server_connection (server_id, user_id, workspace_id) values (?, ?, ?)', [s.id, ann, stack.workspaceId]);

    let access = await call('GET', `/v1/mcp-servers/${s.id}/user-access`);
    expect(access.body.default_user_access).toBe('allow');
    expect(access.body.data).toContainEqual({ user_id: ann, first_name: 'Ann', last_name: 'Tester', enabled: true, has_override: false, connection_status: 'connected' });
    expect(access.body.data).toContainEqual({ user_id: bob, first_name: 'Bob', last_name: 'Tester', enabled: true, has_override: false, connection_status: 'not_connected' });
    expect(access.body.data.map((u: any) => u.user_id)).not.toContain(outsider);

    expect((await call('PUT', `/v1/mcp-servers/${s.id}/user-access`, { default_user_access: 'deny', user_access: [{ user_id: ann, enabled: true }, { user_id: outsider, enabled: true }] })).body).toEqual({ success: true });
    access = await call('GET', `/v1/mcp-servers/${s.id}/user-access?page=1&page_size=500`);
    expect(access.body.default_user_access).toBe('deny');
    const byUser = Object.fromEntries(access.body.data.map((u: any) => [u.user_id, [u.enabled, u.has_override]]));
    expect(byUser[ann]).toEqual([true, true]);
    expect(byUser[bob]).toEqual([false, false]);
    expect(byUser[outsider]).toEqual([true, true]); // an override lists a non-member too
    const paged = await call('GET', `/v1/mcp-servers/${s.id}/user-access?page=1&page_size=1`);
    expect(paged.body).toMatchObject({ total: access.body.total, has_more: true });
    expect(paged.body.data).toHaveLength(1);

    expect((await call('PUT', `/v1/mcp-servers/${s.id}/user-access`, { default_user_access: 'maybe' })).body.error.param).toBe('default_user_access');
    expect((await call('PUT', `/v1/mcp-servers/${s.id}/user-access`, { user_access: [{ user_id: crypto.randomUUID(), enabled: true }] })).body.error).toMatchObject({ code: 'not_found', param: 'user_access[0].user_id' });
    expect((await call('PUT', `/v1/mcp-servers/${s.id}/user-access`, { user_access: [{ user_id: 'x', enabled: true }] })).body.error.param).toBe('user_access[0].user_id');
  });

  it('lists and removes users\' connections', async () => {
    const i = await makeIntegration();
    const s = await makeServer(i.id);
    const ann = await addUser('Ann');
    const bob = await addUser('Bob');
    await sql('insert into mcp_server_connection (server_id, user_id, workspace_id, credentials_sealed) values (?, ?, ?, ?), (?, ?, ?, null), (?, ?, ?, null)', [
      s.id, ann, stack.workspaceId, 'sealed', s.id, bob, stack.workspaceId, s.id, userKeyOwner, stack.workspaceId,
    ]);
    const all = await call('GET', `/v1/mcp-servers/${s.id}/connections`);
    expect(all.body.total).toBe(3);
    expect(all.body.data).toContainEqual({ user_id: ann, connected: true, created_at: ISO, last_updated_at: ISO });
    expect((await call('GET', `/v1/mcp-servers/${s.id}/connections?user_id=${bob}`)).body).toMatchObject({ total: 1, has_more: false, data: [{ user_id: bob }] });
    expect((await call('GET', `/v1/mcp-servers/${s.id}/connections?page_size=1&current_page=1`)).body).toMatchObject({ total: 3, has_more: true });
    expect((await call('GET', `/v1/mcp-servers/${s.id}/connections?page_size=501`)).body.error.param).toBe('page_size');
    expect((await call('GET', `/v1/mcp-servers/${s.id}/connections?workspace_id=${otherWs.id}`)).body.total).toBe(0);

    // Service keys must name the user; user keys default to their own.
    expect((await call('DELETE', `/v1/mcp-servers/${s.id}/connections`)).body.error).toMatchObject({ param: 'user_id', code: 'invalid_parameter' });
    expect(await call('DELETE', `/v1/mcp-servers/${s.id}/connections?user_id=${ann}&workspace_id=${stack.workspaceId}`)).toEqual({ status: 200, body: { success: true } });
    expect((await call('DELETE', `/v1/mcp-servers/${s.id}/connections?user_id=${ann}`)).status).toBe(404);
    expect(await call('DELETE', `/v1/mcp-servers/${s.id}/connections`, undefined, userKey)).toEqual({ status: 200, body: { success: true } });
    expect((await sql('select user_id from mcp_server_connection where server_id = ?', [s.id])).map((r: any) => r.user_id)).toEqual([bob]);
  });

  it('logs every change a server resolves from, and resolves it for workers with decrypted auth', async () => {
    const i = await makeIntegration();
    await call('POST', `/v1/mcp-integrations/${i.id}/sync`, { tools: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] });
    await call('PUT', `/v1/mcp-integrations/${i.id}/capabilities`, { capabilities: [{ name: 'c', type: 'tool', enabled: false }] });
    const s = await makeServer(i.id, { slug: 'resolved-srv' });
    const key = `${stack.workspaceId}:resolved-srv`;
    const changes = async () => sql<{ version: string; action: string }>('select version::text, action from resource_change where resource_type = ? and resource_key = ? order by resource_change.version', ['mcp_server', key]);
    expect(await changes()).toEqual([{ version: expect.any(String), action: 'upsert' }]);

    const user = await addUser('Dee');
    await call('PUT', `/v1/mcp-servers/${s.id}/capabilities`, { capabilities: [{ name: 'b', type: 'tool', enabled: false }] });
    await call('PUT', `/v1/mcp-servers/${s.id}/user-access`, { default_user_access: 'deny', user_access: [{ user_id: user, enabled: true }] });
    await call('PUT', `/v1/mcp-integrations/${i.id}`, { configurations: { custom_headers: { 'x-upstream-key': 'rotated-secret-abcdefghijkl' } } });
    expect((await changes()).length).toBeGreaterThanOrEqual(5);

    const resolver = createMcpServerResolver(stack.secretBox);
    expect(resolver.type).toBe('mcp_server');
    const em = stack.db.orm.em.fork();
    const got = await resolver.resolve(em, key);
    expect(got!.version).toBe(Number((await changes()).at(-1)!.version));
    expect(got!.payload).toEqual({
      id: s.id,
      slug: 'resolved-srv',
      name: expect.any(String),
      organisation_id: stack.organisationId,
      workspace_id: stack.workspaceId,
      status: 'active',
      integration: { id: i.id, slug: i.slug },
      url: upstreamUrl,
      transport: 'http',
      auth: { type: 'headers', headers: { 'x-upstream-key': 'rotated-secret-abcdefghijkl' }, configurations: { custom_headers: { 'x-upstream-key': 'rotated-secret-abcdefghijkl' } } },
      passthrough_header: {},
      secret_mappings: [],
      capabilities: [{ type: 'tool', name: 'a' }],
      user_access: { default: 'deny', overrides: [{ user_id: user, enabled: true }] },
    });
    expect(await resolver.resolve(em, `${stack.workspaceId}:nope`)).toBeNull();
    expect(await resolver.resolve(em, 'garbage')).toBeNull();

    // Renaming the slug deletes the old key; deleting the server deletes the new one.
    await sql('update mcp_server set slug = ? where id = ?', ['resolved-2', s.id]);
    expect((await changes()).at(-1)!.action).toBe('delete');
    await call('DELETE', `/v1/mcp-servers/${s.id}`);
    const last = await sql('select action from resource_change where resource_type = ? and resource_key = ? order by version desc limit 1', ['mcp_server', `${stack.workspaceId}:resolved-2`]);
    expect(last[0].action).toBe('delete');
  });

  it('stops resolving a server whose workspace lost access to its integration', async () => {
    const i = await makeIntegration({ workspace_id: undefined });
    await call('PUT', `/v1/mcp-integrations/${i.id}/workspaces`, { workspaces: [{ id: stack.workspaceId, enabled: true }] });
    const s = await makeServer(i.id);
    const key = `${stack.workspaceId}:${s.slug}`;
    const resolver = createMcpServerResolver(stack.secretBox);
    expect(await resolver.resolve(stack.db.orm.em.fork(), key)).not.toBeNull();
    const before = await sql('select count(*)::int as n from resource_change where resource_key = ?', [key]);
    await call('PUT', `/v1/mcp-integrations/${i.id}/workspaces`, { workspaces: [{ id: stack.workspaceId, enabled: false }] });
    const after = await sql('select count(*)::int as n from resource_change where resource_key = ?', [key]);
    expect(after[0].n).toBeGreaterThan(before[0].n);
    expect(await resolver.resolve(stack.db.orm.em.fork(), key)).toBeNull();
  });
});

describe('MCP servers over GraphQL', () => {
  it('covers every server operation', async () => {
    const i = await makeIntegration();
    await call('POST', `/v1/mcp-integrations/${i.id}/sync`, { tools: [{ name: 'only' }] });
    const created = await gql(`mutation($input: CreateMcpServerInput!) { createMcpServer(input: $input) { __typename ... on McpCreated { id slug } ${ERR} } }`, {
      input: { name: 'G server', mcp_integration_id: i.id, workspace_id: stack.workspaceId, slug: 'g-server' },
    });
    expect(created.data.createMcpServer).toEqual({ __typename: 'McpCreated', id: expect.stringMatching(UUID_RE), slug: 'g-server' });
    const id = created.data.createMcpServer.id;
    const missing = await gql(`mutation($input: CreateMcpServerInput!) { createMcpServer(input: $input) { __typename ${ERR} } }`, { input: { name: 'x', mcp_integration_id: i.id } });
    expect(missing.data.createMcpServer).toMatchObject({ __typename: 'GatewayError', param: 'workspace_id', status: 400 });

    const read = await gql(`query($id: ID!, $ids: String) {
      mcpServer(id: $id) { id slug mcp_integration_details { slug } }
      mcpServers(id: $ids) { total data { slug url workspace_slug } }
      mcpServerCapabilities(id: $id) { total data { name enabled integration_enabled } }
      mcpServerUserAccess(id: $id) { default_user_access }
      mcpServerConnections(id: $id) { total has_more }
      mcpServerMetadata(id: $id) { sync_status }
    }`, { id, ids: id });
    expect(read.errors).toBeUndefined();
    expect(read.data).toEqual({
      mcpServer: { id, slug: 'g-server', mcp_integration_details: { slug: i.slug } },
      mcpServers: { total: 1, data: [{ slug: 'g-server', url: `${GATEWAY}/mcp/g-server/mcp`, workspace_slug: 'ws-default' }] },
      mcpServerCapabilities: { total: 1, data: [{ name: 'only', enabled: true, integration_enabled: true }] },
      mcpServerUserAccess: { default_user_access: 'allow' },
      mcpServerConnections: { total: 0, has_more: false },
      mcpServerMetadata: { sync_status: 'synced' },
    });
    const itest = await gql(`mutation($id: ID!) { testMcpIntegration(id: $id) { __typename ... on McpServerTestResult { success url } } }`, { id: i.slug });
    expect(itest.data.testMcpIntegration).toEqual({ __typename: 'McpServerTestResult', success: true, url: upstreamUrl });

    const ops = await gql(`mutation($id: ID!) {
      updateMcpServer(id: $id, input: { name: "G2" }) { __typename ... on McpChanged { id } }
      testMcpServer(id: $id) { __typename ... on McpServerTestResult { success server_name } }
      updateMcpServerCapabilities(id: $id, input: { capabilities: [{ name: "only", type: "tool", enabled: false }] }) { __typename ... on McpSuccess { success } }
      updateMcpServerUserAccess(id: $id, input: { default_user_access: "deny" }) { __typename ... on McpSuccess { success } }
      deleteMcpServerConnection(id: $id) { __typename ${ERR} }
    }`, { id });
    expect(ops.data).toEqual({
      updateMcpServer: { __typename: 'McpChanged', id },
      testMcpServer: { __typename: 'McpServerTestResult', success: true, server_name: 'fake-upstream' },
      updateMcpServerCapabilities: { __typename: 'McpSuccess', success: true },
      updateMcpServerUserAccess: { __typename: 'McpSuccess', success: true },
      deleteMcpServerConnection: { __typename: 'GatewayError', message: expect.any(String), code: 'invalid_parameter', type: 'invalid_request_error', param: 'user_id', status: 400 },
    });
    const del = await gql(`mutation($id: ID!) { deleteMcpServer(id: $id) { __typename ... on McpChanged { id } } }`, { id });
    expect(del.data.deleteMcpServer).toEqual({ __typename: 'McpChanged', id });
    expect((await gql(`query($id: ID!) { mcpServer(id: $id) { id } }`, { id })).errors[0].extensions.code).toBe('not_found');
  });
});
