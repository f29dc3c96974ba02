import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startStack, type Stack } from '../support/stack.ts';
import { restCall } from '../support/api.ts';

// Deployments (issue 4 item 7; control-plane-schemas 2.19, draft; gateway-spec: `tags`,
// `source_type`, gateway base URLs in list answers) over REST and GraphQL.

const GATEWAYS = ['https://gw-a.example.test', 'https://gw-b.example.test'];
let stack: Stack;
let base: string;
let adminKeyId: string;
let readKey: string;
let otherWs: { id: string; slug: string };
/** A fake gateway worker: `/health` answers `{status: 'ok'}`. */
let gateway: Server;
let gatewayUrl: string;

const sql = <T = any>(q: string, params: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, params);

const call = restCall(() => base, () => stack.adminKey);

async function gql(query: string, variables: Record<string, unknown> = {}, key = stack.adminKey) {
  const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-gateway-api-key': key }, body: JSON.stringify({ query, variables }) });
  return (await res.json()) as any;
}

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ERR = '... on GatewayError { message code type param status }';

let seq = 0;
async function makeDeployment(extra: Record<string, unknown> = {}) {
  const r = await call('POST', '/v1/deployments', { name: `Dep ${++seq}`, ...extra });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { id: string; slug: string };
}

beforeAll(async () => {
  gateway = createServer((req, res) => {
    if (req.url === '/health') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok' }));
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => gateway.listen(0, '127.0.0.1', r));
  gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
  stack = await startStack({ workers: 0, gatewayUrls: GATEWAYS });
  base = stack.controlPlane.httpUrl;
  adminKeyId = (await sql<{ id: string }>("select id from api_key where creation_mode = 'bootstrap'"))[0]!.id;
  readKey = (await stack.createKey({ name: 'dep ro', scopes: ['deployments.read', 'deployments.list'] })).key;
  otherWs = (await call('POST', '/v1/admin/workspaces', { name: 'Dep Other' })).body;
});
afterAll(async () => {
  await stack?.close();
  await new Promise<void>((r) => gateway?.close(() => r()));
});

describe('deployments over REST', () => {
  it('creates with tags, source_type and sealed credentials; lists with gateway URLs; gets, updates and deletes', async () => {
    const created = await call('POST', '/v1/deployments', {
      name: 'EU production',
      type: 'production',
      source_type: 'helm',
      tags: { region: 'eu-west-1', team: 'platform' },
      deployment_config: { replicas: 3 },
      auth_settings: { workspaces_allowed: ['ws-default'], jwt_subs_allowed: ['svc-a'], disable_gateway: 'false' },
      credentials: { username: 'dp', password: 'p4ssw0rd-very-secret' },
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ id: expect.stringMatching(UUID_RE), slug: expect.stringMatching(/^dep-eu-production-[0-9a-f]{6}$/) });
    const { id, slug } = created.body;
    const [row] = await sql('select credentials_password_sealed from deployment where id = ?', [id]);
    expect(row.credentials_password_sealed).not.toContain('p4ssw0rd');
    expect(stack.secretBox.open(row.credentials_password_sealed, `deployment:${id}`)).toBe('p4ssw0rd-very-secret');

    const item = {
      id,
      object: 'deployment',
      name: 'EU production',
      slug,
      organisation_id: stack.organisationId,
      type: 'production',
      status: 'active',
      source_type: 'helm',
      tags: { region: 'eu-west-1', team: 'platform' },
      deployment_config: { replicas: 3 },
      auth_settings: { workspaces_allowed: [stack.workspaceId], jwt_subs_allowed: ['svc-a'], disable_gateway: 'false' },
      is_default: false,
      ch_db: null,
      owner_id: adminKeyId,
      updated_by: adminKeyId,
      created_at: ISO,
      last_updated_at: ISO,
      // Derived from GATEWAY_PUBLIC_URLS: the first is the default.
      gateway_base_url: GATEWAYS[0],
      mcp_gateway_base_url: `${GATEWAYS[0]}/mcp`,
      credentials: { username: 'dp', password: '********' },
    };
    for (const ref of [id, slug]) expect(await call('GET', `/v1/deployments/${ref}`)).toEqual({ status: 200, body: item });
    expect(await call('GET', `/v2/deployments/${id}`)).toEqual({ status: 200, body: item });
    expect((await call('GET', `/v1/deployments/${id}?include_credentials=true`)).body.credentials).toEqual({ username: 'dp', password: 'p4ssw0rd-very-secret' });
    expect((await call('GET', `/v1/deployments/${id}?include_credentials=true`, undefined, readKey)).body.error.code).toBe('missing_scope');
    expect((await call('GET', `/v1/deployments/${id}`, undefined, readKey)).body.credentials.password).toBe('********');

    const list = await call('GET', '/v1/deployments');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ object: 'list', total: list.body.data.length, data: expect.arrayContaining([item]), gateway_base_urls: GATEWAYS });

    // Its own gateway URLs win over the defaults.
    expect(await call('PUT', `/v1/deployments/${id}`, { name: 'EU prod', tags: { region: 'eu-central-1' }, auth_settings: { gateway_base_url: 'https://eu.gw.test/', mcp_gateway_base_url: 'https://mcp.eu.gw.test' } })).toEqual({ status: 200, body: {} });
    const got = (await call('GET', `/v1/deployments/${id}`)).body;
    expect(got).toMatchObject({ name: 'EU prod', tags: { region: 'eu-central-1' }, gateway_base_url: 'https://eu.gw.test', mcp_gateway_base_url: 'https://mcp.eu.gw.test' });
    expect(got.auth_settings).toMatchObject({ workspaces_allowed: [stack.workspaceId], jwt_subs_allowed: ['svc-a'], disable_gateway: 'false' });

    expect(await call('DELETE', `/v1/deployments/${slug}`)).toEqual({ status: 200, body: {} });
    expect((await call('GET', `/v1/deployments/${id}`)).status).toBe(404);
    const audit = await sql('select action, request_details from audit_event where target_id = ? order by created_at', [id]);
    expect(audit.map((a: any) => a.action)).toEqual(['deployment.create', 'deployment.update', 'deployment.delete']);
    expect(JSON.stringify(audit)).not.toContain('p4ssw0rd');
  });

  it('names the bad field in 400s', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'name'],
      [{ name: 'x', type: 'staging' }, 'type'],
      [{ name: 'x', slug: 'a'.repeat(51) }, 'slug'],
      [{ name: 'x', tags: { env: 1 } }, 'tags.env'],
      [{ name: 'x', tags: { 'bad key': 'v' } }, 'tags.bad key'],
      [{ name: 'x', tags: Object.fromEntries(Array.from({ length: 51 }, (_, n) => [`k${n}`, 'v'])) }, 'tags'],
      [{ name: 'x', source_type: 'has space' }, 'source_type'],
      [{ name: 'x', auth_settings: { gateway_base_url: 'not a url' } }, 'auth_settings.gateway_base_url'],
      [{ name: 'x', auth_settings: { unknown: true } }, 'auth_settings.unknown'],
      [{ name: 'x', credentials: { username: 'u' } }, 'credentials.password'],
    ];
    for (const [body, param] of cases) {
      const r = await call('POST', '/v1/deployments', body);
      expect(r.status, param).toBe(400);
      expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param });
    }
    expect((await call('POST', '/v1/deployments', { name: 'x', auth_settings: { workspaces_allowed: ['ws-default', 'ws-missing'] } })).body.error).toMatchObject({ code: 'not_found', param: 'auth_settings.workspaces_allowed[1]' });
    await makeDeployment({ slug: 'dep-taken' });
    expect((await call('POST', '/v1/deployments', { name: 'x', slug: 'dep-taken' })).body.error).toMatchObject({ code: 'slug_taken', param: 'slug' });
    expect((await call('PUT', '/v1/deployments/dep-taken', { status: 'gone' })).body.error.param).toBe('status');
    expect((await call('PUT', '/v1/deployments/missing', { name: 'y' })).status).toBe(404);
    expect((await call('GET', '/v1/deployments?page_size=0')).body.error.param).toBe('page_size');
    expect((await call('GET', '/v1/deployments?current_page=-1')).body.error.param).toBe('current_page');
  });

  it('filters and pages the list', async () => {
    const a = await makeDeployment({ name: 'Filter Alpha', type: 'non_production', auth_settings: { workspaces_allowed: [otherWs.slug] } });
    const b = await makeDeployment({ name: 'Filter Beta' });
    await call('PUT', `/v1/deployments/${b.id}`, { status: 'inactive', auth_settings: { allow_all_workspaces: true } });
    const ids = async (q: string) => (await call('GET', `/v1/deployments?${q}`)).body.data.map((d: any) => d.id);
    expect(await ids('search=filter%20alp')).toEqual([a.id]);
    expect(await ids('search=filter&type=non_production')).toEqual([a.id]);
    expect(await ids('search=filter&status=inactive')).toEqual([b.id]);
    expect(await ids(`search=filter&workspace_slug=${otherWs.slug}`)).toEqual([a.id, b.id]);
    expect(await ids('search=filter&workspace_slug=ws-default')).toEqual([b.id]);
    expect((await call('GET', '/v1/deployments?workspace_slug=ws-missing')).body.error.param).toBe('workspace_slug');
    const p0 = await call('GET', '/v1/deployments?search=filter&page_size=1&current_page=0');
    const p1 = await call('GET', '/v1/deployments?search=filter&page_size=1&current_page=1');
    expect([p0.body.total, p1.body.total]).toEqual([2, 2]);
    expect([p0.body.data[0].id, p1.body.data[0].id]).toEqual([a.id, b.id]);
    expect((await call('GET', `/v1/deployments?organisation_id=${crypto.randomUUID()}`)).status).toBe(404);
  });

  it('merges, removes and overrides auth_settings lists; keeps one default; rotates credentials', async () => {
    const d = await makeDeployment({ is_default: true, auth_settings: { workspaces_allowed: ['ws-default'], jwt_subs_allowed: ['a', 'b'] }, credentials: { username: 'u1', password: 'first-password' } });
    const settings = async () => (await call('GET', `/v1/deployments/${d.id}`)).body.auth_settings;
    await call('PUT', `/v1/deployments/${d.id}`, { auth_settings: { workspaces_allowed: [otherWs.id], jwt_subs_allowed: ['c'], remove_subs_allowed: ['a'] } });
    expect(await settings()).toEqual({ workspaces_allowed: [stack.workspaceId, otherWs.id], jwt_subs_allowed: ['b', 'c'] });
    await call('PUT', `/v1/deployments/${d.id}`, { auth_settings: { remove_workspaces_allowed: ['ws-default'] } });
    expect((await settings()).workspaces_allowed).toEqual([otherWs.id]);
    await call('PUT', `/v1/deployments/${d.id}`, { override_existing: true, auth_settings: { jwt_subs_allowed: ['z'], allow_all_workspaces: true } });
    expect(await settings()).toEqual({ workspaces_allowed: [], jwt_subs_allowed: ['z'], allow_all_workspaces: true });

    const e = await makeDeployment({ is_default: true });
    expect((await call('GET', `/v1/deployments/${d.id}`)).body.is_default).toBe(false);
    expect((await call('GET', `/v1/deployments/${e.id}`)).body.is_default).toBe(true);
    expect(await sql('select count(*)::int as n from deployment where organisation_id = ? and is_default', [stack.organisationId])).toEqual([{ n: 1 }]);

    const rotated = await call('PUT', `/v1/deployments/${d.id}`, { rotate_auth: true, ch_db: 'analytics' });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ credentials: { username: 'u1', password: expect.stringMatching(/^[A-Za-z0-9]{40}$/) } });
    const shown = await call('GET', `/v1/deployments/${d.id}?include_credentials=true`);
    expect(shown.body.credentials.password).toBe(rotated.body.credentials.password);
    expect(shown.body.ch_db).toBe('analytics');
  });

  it('pings the deployment\'s gateway', async () => {
    const up = await makeDeployment({ auth_settings: { gateway_base_url: gatewayUrl } });
    expect(await call('GET', `/v1/deployments/${up.id}/ping`)).toEqual({
      status: 200,
      body: { success: true, url: `${gatewayUrl}/health`, status_code: 200, response_time_ms: expect.any(Number), gateway_status: 'ok', error: null },
    });
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const down = await makeDeployment({ auth_settings: { gateway_base_url: `http://127.0.0.1:${port}` } });
    expect((await call('GET', `/v1/deployments/${down.slug}/ping`)).body).toMatchObject({ success: false, status_code: null, error: expect.stringContaining('Could not reach') });
    const internal = await makeDeployment({ auth_settings: { gateway_base_url: 'http://10.1.2.3:8787' } });
    expect((await call('GET', `/v1/deployments/${internal.id}/ping`)).body).toMatchObject({ success: false, url: 'http://10.1.2.3:8787/health', status_code: null, error: expect.stringContaining('private or reserved') });
    expect((await call('GET', '/v1/deployments/missing/ping')).status).toBe(404);
  });

  it('needs the deployments scopes, which workspace keys cannot hold', async () => {
    expect((await call('POST', '/v1/deployments', { name: 'x' }, readKey)).body.error.code).toBe('missing_scope');
    expect((await call('DELETE', '/v1/deployments/dep-taken', undefined, readKey)).status).toBe(403);
    const ws = await call('POST', '/v2/api-keys/service', { name: 'ws dep', workspace_id: 'ws-default', scopes: ['deployments.list'] });
    expect(ws.status).toBe(400);
    expect((await call('GET', '/v1/deployments', undefined, null)).status).toBe(401);
  });
});

describe('deployments without GATEWAY_PUBLIC_URLS', () => {
  it('answers null gateway URLs rather than inventing them', async () => {
    const bare = await startStack({ workers: 0 });
    try {
      const headers = { 'x-gateway-api-key': bare.adminKey, 'content-type': 'application/json' };
      const created = await fetch(`${bare.controlPlane.httpUrl}/v1/deployments`, { method: 'POST', headers, body: JSON.stringify({ name: 'bare' }) });
      expect(created.status).toBe(200);
      const list = (await (await fetch(`${bare.controlPlane.httpUrl}/v1/deployments`, { headers })).json()) as any;
      expect(list.gateway_base_urls).toEqual([]);
      expect(list.data[0]).toMatchObject({ gateway_base_url: null, mcp_gateway_base_url: null });
      const ping = (await (await fetch(`${bare.controlPlane.httpUrl}/v1/deployments/${list.data[0].id}/ping`, { headers })).json()) as any;
      expect(ping).toMatchObject({ success: false, url: null, error: expect.stringContaining('GATEWAY_PUBLIC_URLS') });
    } finally {
      await bare.close();
    }
  });
});

describe('deployments over GraphQL', () => {
  it('creates, lists, reads, pings, updates and deletes with typed errors', async () => {
    const created = await gql(`mutation($input: CreateDeploymentInput!) { createDeployment(input: $input) { __typename ... on CreatedDeployment { id slug } ${ERR} } }`, {
      input: { name: 'Gql dep', slug: 'gql-dep', source_type: 'terraform', tags: { tier: 'gold' }, credentials: { username: 'g', password: 'gql-password' }, auth_settings: { gateway_base_url: gatewayUrl } },
    });
    expect(created.data.createDeployment).toEqual({ __typename: 'CreatedDeployment', id: expect.stringMatching(UUID_RE), slug: 'gql-dep' });
    const id = created.data.createDeployment.id;
    const bad = await gql(`mutation($input: CreateDeploymentInput!) { createDeployment(input: $input) { __typename ${ERR} } }`, { input: { name: 'x', tags: { a: { b: 1 } } } });
    expect(bad.data.createDeployment).toMatchObject({ __typename: 'GatewayError', code: 'invalid_parameter', param: 'tags.a', status: 400 });

    const read = await gql(`query($id: ID!) {
      deployments(search: "gql") { object total gateway_base_urls data { slug tags source_type gateway_base_url } }
      deployment(id: $id, include_credentials: true) { slug credentials { username password } }
      deploymentPing(id: $id) { success url }
    }`, { id });
    expect(read.errors).toBeUndefined();
    expect(read.data.deployments).toEqual({ object: 'list', total: 1, gateway_base_urls: GATEWAYS, data: [{ slug: 'gql-dep', tags: { tier: 'gold' }, source_type: 'terraform', gateway_base_url: gatewayUrl }] });
    expect(read.data.deployment).toEqual({ slug: 'gql-dep', credentials: { username: 'g', password: 'gql-password' } });
    expect(read.data.deploymentPing).toEqual({ success: true, url: `${gatewayUrl}/health` });

    const upd = await gql(`mutation($id: ID!) { updateDeployment(id: $id, input: { status: "inactive", source_type: null, rotate_auth: true }) { __typename ... on UpdatedDeployment { id credentials { username } } } }`, { id });
    expect(upd.data.updateDeployment).toEqual({ __typename: 'UpdatedDeployment', id, credentials: { username: 'g' } });
    expect((await gql(`query($id: ID!) { deployment(id: $id) { status source_type } }`, { id })).data.deployment).toEqual({ status: 'inactive', source_type: null });
    const denied = await gql(`mutation($id: ID!) { deleteDeployment(id: $id) { __typename ${ERR} } }`, { id }, readKey);
    expect(denied.data.deleteDeployment).toMatchObject({ __typename: 'GatewayError', code: 'missing_scope', status: 403 });
    const del = await gql(`mutation($id: ID!) { deleteDeployment(id: $id) { __typename ... on DeletedDeployment { id } } }`, { id });
    expect(del.data.deleteDeployment).toEqual({ __typename: 'DeletedDeployment', id });
  });
});

describe('GATEWAY_PUBLIC_URLS', () => {
  const env = { DATABASE_URL: 'postgres://h/db', WORKER_TOKEN: 'x'.repeat(20), GATEWAY_SECRET_KEY: Buffer.alloc(32, 7).toString('base64') };
  it('is a comma-separated list of http(s) base URLs, trailing slashes dropped; optional', async () => {
    const { ConfigError, loadControlPlaneEnv, loadEmbeddedEnv } = await import('../../src/platform/env.ts');
    expect(loadControlPlaneEnv({ ...env, GATEWAY_PUBLIC_URLS: 'https://a.test/, http://b.test:8787' }).GATEWAY_PUBLIC_URLS).toEqual(['https://a.test', 'http://b.test:8787']);
    expect(loadControlPlaneEnv(env).GATEWAY_PUBLIC_URLS).toBeUndefined();
    expect(loadEmbeddedEnv({ GATEWAY_PUBLIC_URLS: 'https://gw.test' }).GATEWAY_PUBLIC_URLS).toEqual(['https://gw.test']);
    expect(() => loadControlPlaneEnv({ ...env, GATEWAY_PUBLIC_URLS: 'https://a.test,ftp://b.test' })).toThrow(ConfigError);
    expect(() => loadControlPlaneEnv({ ...env, GATEWAY_PUBLIC_URLS: 'nope' })).toThrow(/GATEWAY_PUBLIC_URLS: must be a http or https URL/);
  });
});
