import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startStack, type Stack } from '../support/stack.ts';
import { graphqlCall } from '../support/api.ts';

let stack: Stack;
let base: string;
let adminKeyId: string;
/** A Workspace API key of the default workspace (data-plane scope only). */
let wsKey: string;

const sql = <T = any>(q: string, params: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, params);
const count = async (q: string, params: unknown[] = []) => Number((await sql<{ n: string }>(q, params))[0]!.n);

async function call(method: string, path: string, body?: unknown, key: string | null = stack.adminKey) {
  const headers: Record<string, string> = { 'user-agent': 'ws-test' };
  if (key) headers['x-gateway-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as any };
}

const gql = graphqlCall(() => base, () => stack.adminKey);

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const NO_SETTINGS = {
  user_api_key_rotation_period: null,
  max_user_api_keys_per_user: null,
  default_api_key_expiry_days: null,
  max_api_key_expiry_days: null,
  user_api_key_auto_create: null,
  user_api_key_auto_create_scopes: null,
};

let seq = 0;
async function makeWorkspace(extra: Record<string, unknown> = {}) {
  const r = await call('POST', '/v1/admin/workspaces', { name: `Made ${++seq}`, ...extra });
  expect(r.status).toBe(200);
  return r.body as { id: string; slug: string; name: string };
}

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  base = stack.controlPlane.httpUrl;
  adminKeyId = (await sql<{ id: string }>("select id from api_key where creation_mode = 'bootstrap'"))[0]!.id;
  wsKey = (await stack.createKey({ name: 'ws key', workspace_id: 'ws-default', scopes: ['completions.write'] })).key;
});
afterAll(async () => stack?.close());

describe('POST /v1/admin/workspaces', () => {
  it('creates a workspace with a generated slug, normalised settings and limits, and answers the Workspace object', async () => {
    const body = {
      name: 'Test A',
      description: 'first',
      defaults: { metadata: { team: 'search' } },
      usage_limits: [{ credit_limit: 100, type: 'cost', periodic_reset: 'monthly' }],
      rate_limits: [{ type: 'requests', unit: 'rpm', value: 60 }],
      settings: { user_api_key_rotation_period: 'weekly', default_api_key_expiry_days: 30, max_api_key_expiry_days: 90 },
    };
    const r = await call('POST', '/v1/admin/workspaces', body);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: expect.stringMatching(UUID_RE),
      slug: expect.stringMatching(/^ws-test-a-[0-9a-f]{6}$/),
      name: 'Test A',
      description: 'first',
      created_at: ISO,
      last_updated_at: ISO,
      defaults: { metadata: { team: 'search' }, is_default: 0, input_guardrails: [], output_guardrails: [], user_api_key_config: null, object: 'workspace' },
      settings: { ...NO_SETTINGS, user_api_key_rotation_period: 7, default_api_key_expiry_days: 30, max_api_key_expiry_days: 90 },
      usage_limits: [{ credit_limit: 100, type: 'cost', periodic_reset: 'monthly' }],
      rate_limits: [{ type: 'requests', unit: 'rpm', value: 60 }],
      status: 'active',
      object: 'workspace',
    });
    const [row] = await sql('select * from workspace where id = ?', [r.body.id]);
    expect(row).toMatchObject({ organisation_id: stack.organisationId, slug: r.body.slug, is_default: false, status: 'active' });
    expect(row.settings).toEqual({ user_api_key_rotation_period: 7, default_api_key_expiry_days: 30, max_api_key_expiry_days: 90 });

    const events = await sql('select * from audit_event where target_id = ?', [r.body.id]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      action: 'workspace.create', target_type: 'workspace', workspace_id: r.body.id, actor_type: 'api_key', actor_id: adminKeyId,
      method: 'POST', uri: '/v1/admin/workspaces', user_agent: 'ws-test',
    });
    expect(events[0].ip).toMatch(/127\.0\.0\.1/);
    expect(events[0].request_details).toMatchObject({ name: 'Test A', slug: r.body.slug, settings: { user_api_key_rotation_period: 7 } });
  });

  it('takes an explicit slug and answers 409 when it is taken, writing nothing', async () => {
    const r = await call('POST', '/v2/workspaces', { name: 'Team B', slug: 'team-b' });
    expect(r.status).toBe(200);
    expect(r.body.slug).toBe('team-b');
    const before = await count('select count(*) n from audit_event');
    const again = await call('POST', '/v1/admin/workspaces', { name: 'Other', slug: 'team-b' });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ type: 'conflict_error', code: 'conflict', param: 'slug' });
    expect(await count("select count(*) n from workspace where slug = 'team-b'")).toBe(1);
    expect(await count('select count(*) n from audit_event')).toBe(before);
  });

  it('generates distinct slugs for equal names', async () => {
    const a = await makeWorkspace({ name: 'Same Name!' });
    const b = await makeWorkspace({ name: 'Same Name!' });
    expect(a.slug).toMatch(/^ws-same-name-[0-9a-f]{6}$/);
    expect(b.slug).not.toBe(a.slug);
  });

  it.each([
    [{}, 'name'],
    [{ name: '  ' }, 'name'],
    [{ name: 'x', color: 'red' }, 'color'],
    [{ name: 'x', slug: 'has space' }, 'slug'],
    [{ name: 'x', slug: '2c4d3a9e-1b2c-4d5e-8f90-123456789abc' }, 'slug'],
    [{ name: 'x', usage_limits: [{ credit_limit: 0 }] }, 'usage_limits[0].credit_limit'],
    [{ name: 'x', usage_limits: [{ credit_limit: 5 }, { credit_limit: 6 }] }, 'usage_limits'],
    [{ name: 'x', usage_limits: [{ periodic_reset: 'weekly', periodic_reset_days: 3 }] }, 'usage_limits[0].periodic_reset_days'],
    [{ name: 'x', rate_limits: [{ type: 'requests', unit: 'rpy', value: 1 }] }, 'rate_limits[0].unit'],
    [{ name: 'x', rate_limits: [{ type: 'requests', unit: 'rpm', value: 'ten' }] }, 'rate_limits[0].value'],
    [{ name: 'x', defaults: { metadata: { a: 1 } } }, 'defaults.metadata.a'],
    [{ name: 'x', settings: { default_api_key_expiry_days: 100, max_api_key_expiry_days: 10 } }, 'settings.default_api_key_expiry_days'],
    [{ name: 'x', settings: { user_api_key_rotation_period: 'daily' } }, 'settings.user_api_key_rotation_period'],
    [{ name: 'x', settings: { default_workspace_user_api_key_auto_create: true } }, 'settings.default_workspace_user_api_key_auto_create'],
    [{ name: 'x', users: ['not-a-uuid'] }, 'users[0]'],
    [{ name: 'x', users: ['2c4d3a9e-1b2c-4d5e-8f90-123456789abc'] }, 'users[0]'],
  ])('answers 400 naming the field for %j and writes nothing', async (body, param) => {
    const before = [await count('select count(*) n from workspace'), await count('select count(*) n from audit_event')];
    const r = await call('POST', '/v1/admin/workspaces', body);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param });
    expect([await count('select count(*) n from workspace'), await count('select count(*) n from audit_event')]).toEqual(before);
  });

  it('rejects bodies that are not JSON objects', async () => {
    expect((await call('POST', '/v1/admin/workspaces', '{nope')).body.error.code).toBe('invalid_json');
    expect((await call('POST', '/v1/admin/workspaces', '[]')).status).toBe(400);
  });
});

describe('GET /v1/admin/workspaces', () => {
  let alpha: { id: string }, archived: { id: string; name: string };
  beforeAll(async () => {
    alpha = await makeWorkspace({ name: 'Listing Alpha' });
    await makeWorkspace({ name: 'Listing alpha lower' });
    await makeWorkspace({ name: 'Listing Beta' });
    archived = await makeWorkspace({ name: 'Listing Old' });
    expect((await call('PUT', `/v1/admin/workspaces/${archived.id}`, { status: 'archived' })).status).toBe(200);
  });

  it('pages with current_page and page_size and counts every page in total', async () => {
    const all = await call('GET', '/v1/admin/workspaces?page_size=1000');
    expect(all.status).toBe(200);
    expect(all.body.object).toBe('list');
    expect(all.body.total).toBe(all.body.data.length);
    expect(all.body.total).toBe(await count("select count(*) n from workspace where status = 'active'"));
    expect(all.body.data[0]).toMatchObject({ slug: 'ws-default', defaults: { is_default: 1 }, object: 'workspace' });
    const p1 = await call('GET', '/v2/workspaces?page_size=2&current_page=1');
    expect(p1.body.data.map((w: any) => w.id)).toEqual(all.body.data.slice(2, 4).map((w: any) => w.id));
    expect(p1.body.total).toBe(all.body.total);
    expect((await call('GET', '/v1/admin/workspaces?page_size=abc')).body.error.param).toBe('page_size');
    expect((await call('GET', '/v1/admin/workspaces?page_size=0')).body.error.param).toBe('page_size');
  });

  it('filters by name (case-sensitive part), exact_name and status; archived ones only when asked', async () => {
    const names = async (q: string) => (await call('GET', `/v1/admin/workspaces?${q}`)).body.data.map((w: any) => w.name);
    expect(await names('name=Listing%20Alpha')).toEqual(['Listing Alpha']);
    expect(await names('name=alpha')).toEqual(['Listing alpha lower']);
    expect(await names('name=Listing')).toEqual(['Listing Alpha', 'Listing alpha lower', 'Listing Beta']);
    expect(await names('exact_name=Listing%20Beta')).toEqual(['Listing Beta']);
    expect(await names('exact_name=Listing')).toEqual([]);
    expect(await names('name=%25')).toEqual([]); // a literal %, not a wildcard
    expect(await names('status=archived')).toEqual(['Listing Old']);
    expect(await names('name=Listing&status=active,archived')).toEqual(['Listing Alpha', 'Listing alpha lower', 'Listing Beta', 'Listing Old']);
    const bad = await call('GET', '/v1/admin/workspaces?status=gone');
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('status');
    expect(alpha.id).toMatch(UUID_RE);
  });
});

describe('GET /v1/admin/workspaces/{id} and /v2/workspaces/{id}', () => {
  it('answers the workspace by id or slug, with its users', async () => {
    const ws = await makeWorkspace({ name: 'Readable', description: null });
    const byId = await call('GET', `/v1/admin/workspaces/${ws.id}`);
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual({ ...ws, users: [] });
    const bySlug = await call('GET', `/v2/workspaces/${ws.slug}`);
    expect(bySlug.body).toEqual(byId.body);
  });

  it('accepts name_format=plain (the name as stored) and nothing else', async () => {
    const ws = await makeWorkspace({ name: '  Spaced  Name ' });
    const plain = await call('GET', `/v2/workspaces/${ws.id}?name_format=plain`);
    expect(plain.status).toBe(200);
    expect(plain.body.name).toBe('Spaced  Name');
    const bad = await call('GET', `/v2/workspaces/${ws.id}?name_format=fancy`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('name_format');
  });

  it('answers 404 for unknown ids and slugs', async () => {
    for (const id of ['ws-nope', '2c4d3a9e-1b2c-4d5e-8f90-123456789abc']) {
      const r = await call('GET', `/v1/admin/workspaces/${id}`);
      expect(r.status).toBe(404);
      expect(r.body.error).toMatchObject({ type: 'not_found_error', param: 'id' });
    }
  });
});

describe('PUT /v1/admin/workspaces/{id} and /v2/workspaces/{id}', () => {
  it('updates name, description, defaults (user_api_key_config, guardrails) and limits, answering {}', async () => {
    const ws = await makeWorkspace({ defaults: { metadata: { env: 'prod' } }, rate_limits: [{ type: 'requests', unit: 'rpm', value: 5 }] });
    const r = await call('PUT', `/v2/workspaces/${ws.id}`, {
      name: 'Renamed',
      description: 'now described',
      defaults: { user_api_key_config: 'pc-default-1', input_guardrails: ['guard_pii'], output_guardrails: ['guard_tox'] },
      usage_limits: [{ credit_limit: 10, type: 'tokens' }],
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
    const got = (await call('GET', `/v2/workspaces/${ws.slug}`)).body;
    expect(got).toMatchObject({
      name: 'Renamed',
      description: 'now described',
      defaults: { metadata: { env: 'prod' }, is_default: 0, input_guardrails: ['guard_pii'], output_guardrails: ['guard_tox'], user_api_key_config: 'pc-default-1', object: 'workspace' },
      usage_limits: [{ credit_limit: 10, type: 'tokens' }],
      rate_limits: [{ type: 'requests', unit: 'rpm', value: 5 }],
    });
    expect(Date.parse(got.last_updated_at)).toBeGreaterThanOrEqual(Date.parse(got.created_at));

    await call('PUT', `/v1/admin/workspaces/${ws.slug}`, { defaults: { user_api_key_config: null }, rate_limits: null, description: null });
    const cleared = (await call('GET', `/v1/admin/workspaces/${ws.id}`)).body;
    expect(cleared.defaults.user_api_key_config).toBeNull();
    expect(cleared.defaults.input_guardrails).toEqual(['guard_pii']);
    expect(cleared.rate_limits).toEqual([]);
    expect(cleared.description).toBeNull();

    const events = await sql('select action, target_type, target_id, method, uri from audit_event where target_id = ? order by created_at', [ws.id]);
    expect(events).toEqual([
      { action: 'workspace.create', target_type: 'workspace', target_id: ws.id, method: 'POST', uri: '/v1/admin/workspaces' },
      { action: 'workspace.update', target_type: 'workspace', target_id: ws.id, method: 'PUT', uri: `/v2/workspaces/${ws.id}` },
      { action: 'workspace.update', target_type: 'workspace', target_id: ws.id, method: 'PUT', uri: `/v1/admin/workspaces/${ws.slug}` },
    ]);
  });

  it('merges settings (weekly/monthly stored as 7/30, null clears) and checks the merged result', async () => {
    const ws = await makeWorkspace();
    expect((await call('PUT', `/v2/workspaces/${ws.id}`, { settings: { user_api_key_rotation_period: 'weekly', max_api_key_expiry_days: 30 } })).status).toBe(200);
    let [row] = await sql('select settings from workspace where id = ?', [ws.id]);
    expect(row.settings).toEqual({ user_api_key_rotation_period: 7, max_api_key_expiry_days: 30 });
    await call('PUT', `/v2/workspaces/${ws.id}`, { settings: { user_api_key_rotation_period: 'monthly', user_api_key_auto_create_scopes: ['completions.write'] } });
    [row] = await sql('select settings from workspace where id = ?', [ws.id]);
    expect(row.settings).toEqual({ user_api_key_rotation_period: 30, max_api_key_expiry_days: 30, user_api_key_auto_create_scopes: ['completions.write'] });

    const before = await count('select count(*) n from audit_event');
    const over = await call('PUT', `/v2/workspaces/${ws.id}`, { name: 'Should not stick', settings: { default_api_key_expiry_days: 60 } });
    expect(over.status).toBe(400);
    expect(over.body.error.param).toBe('settings.default_api_key_expiry_days');
    expect(await count('select count(*) n from audit_event')).toBe(before);
    expect((await call('GET', `/v2/workspaces/${ws.id}`)).body.name).not.toBe('Should not stick');

    await call('PUT', `/v2/workspaces/${ws.id}`, { settings: { max_api_key_expiry_days: null, default_api_key_expiry_days: 60 } });
    const got = (await call('GET', `/v2/workspaces/${ws.id}`)).body;
    expect(got.settings).toEqual({ ...NO_SETTINGS, user_api_key_rotation_period: 30, default_api_key_expiry_days: 60, user_api_key_auto_create_scopes: ['completions.write'] });
  });

  it.each([
    [{ defaults: { user_api_key_config: '' } }, 'defaults.user_api_key_config'],
    [{ defaults: { user_api_key_config: 'x'.repeat(256) } }, 'defaults.user_api_key_config'],
    [{ defaults: { input_guardrails: [''] } }, 'defaults.input_guardrails[0]'],
    [{ name: '' }, 'name'],
    [{ status: 'deleted' }, 'status'],
    [{ slug: 'new-slug' }, 'slug'],
    [{ settings: { max_user_api_keys_per_user: 0 } }, 'settings.max_user_api_keys_per_user'],
    [{ settings: { unknown_setting: 1 } }, 'settings.unknown_setting'],
    [{ rate_limits: [{ type: 'requests', unit: 'rpm' }] }, 'rate_limits[0].value'],
  ])('answers 400 naming the field for %j', async (body, param) => {
    const ws = (await call('GET', '/v1/admin/workspaces?exact_name=Test%20A')).body.data[0];
    const before = await count('select count(*) n from audit_event');
    const r = await call('PUT', `/v1/admin/workspaces/${ws.id}`, body);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param });
    expect(await count('select count(*) n from audit_event')).toBe(before);
    expect((await call('GET', `/v1/admin/workspaces/${ws.id}`)).body).toMatchObject({ name: 'Test A', status: 'active', last_updated_at: ws.last_updated_at });
  });

  it('answers 404 for an unknown workspace and 409 for archiving the default one', async () => {
    expect((await call('PUT', '/v1/admin/workspaces/ws-nope', { name: 'x' })).status).toBe(404);
    const r = await call('PUT', '/v1/admin/workspaces/ws-default', { status: 'archived' });
    expect(r.status).toBe(409);
    expect(r.body.error.param).toBe('status');
  });
});

describe('DELETE /v1/admin/workspaces/{id}', () => {
  it('deletes the workspace; its API keys stop working at once', async () => {
    const ws = await makeWorkspace();
    const key = await stack.createKey({ name: 'doomed', workspace_id: ws.slug, scopes: ['workspace_service_api_keys.list'] });
    expect((await call('GET', '/v2/api-keys', undefined, key.key)).status).toBe(200);

    const r = await call('DELETE', `/v1/admin/workspaces/${ws.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
    expect((await call('GET', '/v2/api-keys', undefined, key.key)).status).toBe(401);
    expect(await count('select count(*) n from workspace where id = ?', [ws.id])).toBe(0);
    expect(await count('select count(*) n from api_key where id = ? and deleted_at is null', [key.id])).toBe(0);
    const [ev] = await sql("select * from audit_event where target_id = ? and action = 'workspace.delete'", [ws.id]);
    expect(ev).toMatchObject({ target_type: 'workspace', actor_id: adminKeyId, method: 'DELETE' });
    expect(ev.request_details).toMatchObject({ slug: ws.slug, deleted_api_keys: 1 });
    expect((await call('GET', `/v1/admin/workspaces/${ws.id}`)).status).toBe(404);
    expect((await call('DELETE', `/v1/admin/workspaces/${ws.id}`)).status).toBe(404);
  });

  it('refuses to delete the default workspace with 409 and writes nothing', async () => {
    const before = await count('select count(*) n from audit_event');
    const r = await call('DELETE', '/v1/admin/workspaces/ws-default');
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ type: 'conflict_error', code: 'conflict' });
    expect(await count("select count(*) n from workspace where slug = 'ws-default'")).toBe(1);
    expect(await count('select count(*) n from audit_event')).toBe(before);
  });
});

describe('authorization', () => {
  it('answers 401 without a key or with a bad one', async () => {
    expect((await call('GET', '/v1/admin/workspaces', undefined, null)).status).toBe(401);
    expect((await call('POST', '/v1/admin/workspaces', { name: 'x' }, null)).status).toBe(401);
    const r = await call('GET', '/v2/workspaces/ws-default', undefined, 'B'.repeat(48));
    expect(r.status).toBe(401);
    expect(r.body.error.type).toBe('authentication_error');
  });

  it('lets a workspace key read its own workspace only, and nothing else', async () => {
    const own = await call('GET', '/v2/workspaces/ws-default', undefined, wsKey);
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ id: stack.workspaceId, slug: 'ws-default', users: [] });
    const other = await makeWorkspace();
    expect((await call('GET', `/v2/workspaces/${other.id}`, undefined, wsKey)).status).toBe(404);
    const before = await count('select count(*) n from audit_event');
    for (const [method, path, body] of [
      ['GET', '/v1/admin/workspaces', undefined],
      ['POST', '/v1/admin/workspaces', { name: 'nope' }],
      ['PUT', '/v2/workspaces/ws-default', { name: 'nope' }],
      ['PUT', `/v2/workspaces/${other.id}`, { name: 'nope' }],
      ['DELETE', `/v1/admin/workspaces/${other.id}`, undefined],
    ] as const) {
      const r = await call(method, path, body, wsKey);
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body.error.type).toBe('permission_error');
    }
    expect(await count('select count(*) n from audit_event')).toBe(before);
    expect(await count("select count(*) n from workspace where name = 'nope'")).toBe(0);
  });

  it('needs the workspaces.* scope for organisation keys', async () => {
    const lister = await stack.createKey({ name: 'lister', scopes: ['workspaces.list'] });
    expect((await call('GET', '/v1/admin/workspaces', undefined, lister.key)).status).toBe(200);
    const get = await call('GET', '/v1/admin/workspaces/ws-default', undefined, lister.key);
    expect(get.status).toBe(403);
    expect(get.body.error.code).toBe('missing_scope');
    expect((await call('POST', '/v1/admin/workspaces', { name: 'x' }, lister.key)).status).toBe(403);
  });
});

describe('GraphQL', () => {
  const FIELDS = 'id slug name status defaults { is_default user_api_key_config } settings { user_api_key_rotation_period }';

  it('creates, lists, reads, updates and deletes workspaces', async () => {
    const created = await gql(`mutation($input: CreateWorkspaceInput!) { createWorkspace(input: $input) {
      __typename ... on Workspace { ${FIELDS} auto_created_api_keys { id } } } }`, { input: { name: 'Graph One', settings: { user_api_key_rotation_period: 'monthly' } } });
    const ws = created.body.data.createWorkspace;
    expect(ws).toMatchObject({ __typename: 'Workspace', name: 'Graph One', status: 'active', settings: { user_api_key_rotation_period: 30 }, auto_created_api_keys: [] });
    expect(ws.slug).toMatch(/^ws-graph-one-[0-9a-f]{6}$/);

    const list = await gql('query { workspaces(exact_name: "Graph One") { object total data { id } } }');
    expect(list.body.data.workspaces).toEqual({ object: 'list', total: 1, data: [{ id: ws.id }] });

    const updated = await gql(`mutation($id: ID!) { updateWorkspace(id: $id, input: { defaults: { user_api_key_config: "pc-x" } }) {
      __typename ... on Workspace { defaults { user_api_key_config } } } }`, { id: ws.slug });
    expect(updated.body.data.updateWorkspace).toEqual({ __typename: 'Workspace', defaults: { user_api_key_config: 'pc-x' } });

    const one = await gql(`query($id: ID!) { workspace(id: $id, name_format: "plain") { ${FIELDS} users { id } } }`, { id: ws.id });
    expect(one.body.data.workspace).toMatchObject({ id: ws.id, defaults: { is_default: 0, user_api_key_config: 'pc-x' }, users: [] });

    const deleted = await gql('mutation($id: ID!) { deleteWorkspace(id: $id) { __typename ... on WorkspaceDeleted { id slug deleted_api_keys } } }', { id: ws.id });
    expect(deleted.body.data.deleteWorkspace).toEqual({ __typename: 'WorkspaceDeleted', id: ws.id, slug: ws.slug, deleted_api_keys: 0 });
    const actions = await sql('select action from audit_event where target_id = ? order by created_at', [ws.id]);
    expect(actions.map((a: any) => a.action)).toEqual(['workspace.create', 'workspace.update', 'workspace.delete']);
  });

  it('answers typed errors with the REST codes', async () => {
    const E = '__typename ... on GatewayError { code param status }';
    const bad = await gql(`mutation { createWorkspace(input: { name: "g", settings: { max_api_key_expiry_days: 0 } }) { ${E} } }`);
    expect(bad.body.data.createWorkspace).toEqual({ __typename: 'GatewayError', code: 'invalid_parameter', param: 'settings.max_api_key_expiry_days', status: 400 });
    const dflt = await gql(`mutation { deleteWorkspace(id: "ws-default") { ${E} } }`);
    expect(dflt.body.data.deleteWorkspace).toEqual({ __typename: 'GatewayError', code: 'conflict', param: 'id', status: 409 });
    const missing = await gql(`mutation { updateWorkspace(id: "ws-nope", input: { name: "n" }) { ${E} } }`);
    expect(missing.body.data.updateWorkspace).toMatchObject({ code: 'not_found', status: 404 });
    const forbidden = await gql(`mutation { createWorkspace(input: { name: "g" }) { ${E} } }`, {}, wsKey);
    expect(forbidden.body.data.createWorkspace).toMatchObject({ code: 'missing_scope', status: 403 });
    const notThere = await gql('query { workspace(id: "ws-nope") { id } }');
    expect(notThere.body.errors[0].extensions).toMatchObject({ code: 'not_found', param: 'id' });
    const listForbidden = await gql('query { workspaces { total } }', {}, wsKey);
    expect(listForbidden.body.errors[0].extensions.code).toBe('missing_scope');
    const own = await gql('query { workspace(id: "ws-default") { slug users { id } } }', {}, wsKey);
    expect(own.body.data.workspace).toEqual({ slug: 'ws-default', users: [] });
  });
});
