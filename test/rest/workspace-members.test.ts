import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { MEMBER_SCOPES } from '../../src/domain/roles.ts';
import { ALL_SCOPES, WORKSPACE_SCOPES } from '../../src/domain/scopes.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { graphqlCall } from '../support/api.ts';

let stack: Stack;
let base: string;
let wsKey: string;

const sql = <T = any>(q: string, params: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, params);
const count = async (q: string, params: unknown[] = []) => Number((await sql<{ n: string }>(q, params))[0]!.n);

async function call(method: string, path: string, body?: unknown, key: string | null = stack.adminKey) {
  const headers: Record<string, string> = {};
  if (key) headers['x-gateway-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as any };
}

const gql = graphqlCall(() => base, () => stack.adminKey);

let userSeq = 0;
/** There is no user-create endpoint in this slice: users are inserted directly. */
async function makeUser(role: 'member' | 'admin' | 'owner' = 'member', names: [string | null, string | null] = [null, null]) {
  const id = crypto.randomUUID();
  const email = `user${++userSeq}-${id.slice(0, 4)}@example.com`;
  await sql('insert into app_user (id, organisation_id, email, role, first_name, last_name) values (?, ?, ?, ?, ?, ?)', [id, stack.organisationId, email, role, names[0], names[1]]);
  return { id, email };
}

let wsSeq = 0;
async function makeWorkspace(extra: Record<string, unknown> = {}) {
  const r = await call('POST', '/v1/admin/workspaces', { name: `Members ${++wsSeq}`, ...extra });
  expect(r.status).toBe(200);
  return r.body as { id: string; slug: string };
}

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  base = stack.controlPlane.httpUrl;
  wsKey = (await stack.createKey({ name: 'ws key', workspace_id: 'ws-default', scopes: ['completions.write'] })).key;
});
afterAll(async () => stack?.close());

describe('POST and GET /v1/admin/workspaces/{id}/users', () => {
  it('adds users with roles, answers {} and lists them as WorkspaceMember objects', async () => {
    const ws = await makeWorkspace();
    const ann = await makeUser('member', ['Ann', 'Lee']);
    const bob = await makeUser('member');
    const cat = await makeUser('admin');
    const r = await call('POST', `/v1/admin/workspaces/${ws.id}/users`, {
      users: [{ id: ann.id, role: 'member' }, { id: bob.id, role: 'manager' }, { id: cat.id, role: 'admin' }],
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});

    const list = await call('GET', `/v1/admin/workspaces/${ws.slug}/users`);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ object: 'list', total: 3 });
    // Members added together share created_at; the order among them is by user id.
    expect(list.body.data.map((m: any) => m.id)).toEqual([ann.id, bob.id, cat.id].sort());
    expect(list.body.data.find((m: any) => m.id === ann.id)).toEqual({
      object: 'workspace-user', id: ann.id, first_name: 'Ann', last_name: 'Lee', org_role: 'member', role: 'member',
      created_at: ISO, last_updated_at: ISO, status: 'active', workspace_id: ws.id, email: ann.email, scopes: [...MEMBER_SCOPES], settings: null,
    });
    const byId = Object.fromEntries(list.body.data.map((m: any) => [m.id, m]));
    expect(byId[bob.id]).toMatchObject({ role: 'manager', org_role: 'member', scopes: [...WORKSPACE_SCOPES], first_name: null });
    expect(byId[cat.id]).toMatchObject({ role: 'admin', org_role: 'admin', scopes: [...ALL_SCOPES] });

    const [ev] = await sql("select * from audit_event where action = 'workspace_member.add' and target_id = ?", [ws.id]);
    expect(ev).toMatchObject({ target_type: 'workspace', workspace_id: ws.id, method: 'POST', uri: `/v1/admin/workspaces/${ws.id}/users` });
    expect(ev.request_details).toMatchObject({ added: [ann.id, bob.id, cat.id], updated: [] });

    // The workspace get lists its users too.
    const got = await call('GET', `/v1/admin/workspaces/${ws.id}`);
    expect(got.body.users.map((u: any) => u.id)).toEqual([ann.id, bob.id, cat.id].sort());
  });

  it('changes the role of users already in, without duplicating them', async () => {
    const ws = await makeWorkspace();
    const u = await makeUser();
    await call('POST', `/v1/admin/workspaces/${ws.id}/users`, { users: [{ id: u.id, role: 'member' }] });
    const again = await call('POST', `/v2/workspaces/${ws.id}/users`, { users: [{ id: u.id, role: 'manager' }] });
    expect(again.status).toBe(200);
    const rows = await sql('select role from workspace_member where workspace_id = ?', [ws.id]);
    expect(rows).toEqual([{ role: 'manager' }]);
  });

  it('adds the users given at workspace creation as members', async () => {
    const u = await makeUser();
    const ws = await makeWorkspace({ users: [u.id] });
    const list = await call('GET', `/v2/workspaces/${ws.id}/users`);
    expect(list.body.data.map((m: any) => [m.id, m.role])).toEqual([[u.id, 'member']]);
  });

  it.each([
    [(u: string) => ({ users: [{ id: u, role: 'member' }, { id: '2c4d3a9e-1b2c-4d5e-8f90-123456789abc', role: 'member' }] }), 'users[1].id'],
    [(u: string) => ({ users: [{ id: u, role: 'owner' }] }), 'users[0].role'],
    [() => ({ users: [{ id: 'nope', role: 'member' }] }), 'users[0].id'],
    [(u: string) => ({ users: [{ id: u, role: 'member' }, { id: u, role: 'admin' }] }), 'users[1].id'],
    [() => ({ users: [] }), 'users'],
    [() => ({}), 'users'],
    [(u: string) => ({ users: [{ id: u, role: 'member' }], extra: true }), 'extra'],
  ])('answers 400 naming the field (case %#) and writes nothing', async (body, param) => {
    const ws = await makeWorkspace();
    const u = await makeUser();
    const before = await count('select count(*) n from audit_event');
    const r = await call('POST', `/v1/admin/workspaces/${ws.id}/users`, body(u.id));
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param });
    expect(await count('select count(*) n from workspace_member where workspace_id = ?', [ws.id])).toBe(0);
    expect(await count('select count(*) n from audit_event')).toBe(before);
  });

  it('refuses users of another organisation', async () => {
    const ws = await makeWorkspace();
    const orgId = crypto.randomUUID();
    const stranger = crypto.randomUUID();
    await sql("insert into organisation (id, name, slug) values (?, 'Other', ?)", [orgId, `other-${orgId.slice(0, 8)}`]);
    await sql("insert into app_user (id, organisation_id, email, role) values (?, ?, 'x@other.example', 'member')", [stranger, orgId]);
    const r = await call('POST', `/v1/admin/workspaces/${ws.id}/users`, { users: [{ id: stranger, role: 'member' }] });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('users[0].id');
  });

  it('pages and filters by role and email', async () => {
    const ws = await makeWorkspace();
    const users = [await makeUser(), await makeUser(), await makeUser()];
    await call('POST', `/v1/admin/workspaces/${ws.id}/users`, {
      users: [{ id: users[0]!.id, role: 'member' }, { id: users[1]!.id, role: 'manager' }, { id: users[2]!.id, role: 'member' }],
    });
    const all = await call('GET', `/v1/admin/workspaces/${ws.id}/users`);
    const p = await call('GET', `/v1/admin/workspaces/${ws.id}/users?page_size=2&current_page=1`);
    expect(p.body).toMatchObject({ object: 'list', total: 3 });
    expect(p.body.data.map((m: any) => m.id)).toEqual([all.body.data[2].id]);
    const p0 = await call('GET', `/v1/admin/workspaces/${ws.id}/users?page_size=2`);
    expect(p0.body.data.map((m: any) => m.id)).toEqual(all.body.data.slice(0, 2).map((m: any) => m.id));
    const managers = await call('GET', `/v1/admin/workspaces/${ws.id}/users?role=manager`);
    expect(managers.body.data.map((m: any) => m.id)).toEqual([users[1]!.id]);
    expect(managers.body.total).toBe(1);
    const byEmail = await call('GET', `/v1/admin/workspaces/${ws.id}/users?email=${encodeURIComponent(users[2]!.email.toUpperCase())}`);
    expect(byEmail.body.data.map((m: any) => m.id)).toEqual([users[2]!.id]);
    const none = await call('GET', `/v1/admin/workspaces/${ws.id}/users?email=${encodeURIComponent('%')}`);
    expect(none.body).toEqual({ object: 'list', total: 0, data: [] });
    expect((await call('GET', `/v1/admin/workspaces/${ws.id}/users?role=owner`)).body.error.param).toBe('role');
    expect((await call('GET', `/v1/admin/workspaces/${ws.id}/users?page_size=x`)).body.error.param).toBe('page_size');
  });

  it('answers 404 for an unknown workspace', async () => {
    const r = await call('GET', '/v1/admin/workspaces/ws-nope/users');
    expect(r.status).toBe(404);
    expect(r.body.error.param).toBe('workspace_id');
    const u = await makeUser();
    expect((await call('POST', '/v1/admin/workspaces/ws-nope/users', { users: [{ id: u.id, role: 'member' }] })).status).toBe(404);
  });
});

describe('GET, PUT, DELETE /v1/admin/workspaces/{id}/users/{userId}', () => {
  it('reads one member and changes its role', async () => {
    const ws = await makeWorkspace();
    const u = await makeUser();
    await call('POST', `/v1/admin/workspaces/${ws.id}/users`, { users: [{ id: u.id, role: 'member' }] });
    const one = await call('GET', `/v1/admin/workspaces/${ws.id}/users/${u.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ object: 'workspace-user', id: u.id, role: 'member', workspace_id: ws.id, email: u.email });

    const put = await call('PUT', `/v2/workspaces/${ws.slug}/users/${u.id}`, { role: 'manager' });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({});
    expect((await call('GET', `/v2/workspaces/${ws.id}/users/${u.id}`)).body).toMatchObject({ role: 'manager', scopes: [...WORKSPACE_SCOPES] });
    const [ev] = await sql("select * from audit_event where action = 'workspace_member.update' and target_id = ?", [u.id]);
    expect(ev).toMatchObject({ target_type: 'workspace_member', workspace_id: ws.id, method: 'PUT' });
    expect(ev.request_details).toMatchObject({ role: 'manager', previous_role: 'member' });

    for (const [body, param] of [[{ role: 'owner' }, 'role'], [{}, 'role'], [{ role: 'admin', x: 1 }, 'x']] as const) {
      const bad = await call('PUT', `/v1/admin/workspaces/${ws.id}/users/${u.id}`, body);
      expect(bad.status).toBe(400);
      expect(bad.body.error.param).toBe(param);
    }
    expect((await call('GET', `/v1/admin/workspaces/${ws.id}/users/${u.id}`)).body.role).toBe('manager');
  });

  it('answers 404 for users who are not members', async () => {
    const ws = await makeWorkspace();
    const u = await makeUser();
    for (const [method, body] of [['GET', undefined], ['PUT', { role: 'member' }], ['DELETE', undefined]] as const) {
      for (const id of [u.id, 'not-a-uuid']) {
        const r = await call(method, `/v1/admin/workspaces/${ws.id}/users/${id}`, body);
        expect(r.status, `${method} ${id}`).toBe(404);
        expect(r.body.error.param).toBe('user_id');
      }
    }
  });

  it("removes the member, whose user keys in that workspace stop working (and no others)", async () => {
    const ws = await makeWorkspace();
    const other = await makeWorkspace();
    const u = await makeUser();
    await call('POST', `/v1/admin/workspaces/${ws.id}/users`, { users: [{ id: u.id, role: 'manager' }] });
    await call('POST', `/v1/admin/workspaces/${other.id}/users`, { users: [{ id: u.id, role: 'manager' }] });
    const scopes = ['workspace_user_api_keys.list', 'completions.write'];
    const key = await stack.createKey({ name: 'mine', workspace_id: ws.slug, user_id: u.id, scopes }, 'user');
    const keep = await stack.createKey({ name: 'other ws', workspace_id: other.slug, user_id: u.id, scopes }, 'user');
    const service = await stack.createKey({ name: 'svc', workspace_id: ws.slug, scopes: ['workspace_service_api_keys.list'] });
    expect((await call('GET', '/v2/api-keys', undefined, key.key)).status).toBe(200);

    const r = await call('DELETE', `/v1/admin/workspaces/${ws.id}/users/${u.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
    const denied = await call('GET', '/v2/api-keys', undefined, key.key);
    expect(denied.status).toBe(401);
    expect(denied.body.error.type).toBe('authentication_error');
    expect((await call('GET', '/v2/api-keys', undefined, keep.key)).status).toBe(200);
    expect((await call('GET', '/v2/api-keys', undefined, service.key)).status).toBe(200);
    const [row] = await sql('select deleted_at from api_key where id = ?', [key.id]);
    expect(row.deleted_at).not.toBeNull();
    expect(await count('select count(*) n from workspace_member where workspace_id = ? and user_id = ?', [ws.id, u.id])).toBe(0);
    const [ev] = await sql("select * from audit_event where action = 'workspace_member.remove' and target_id = ?", [u.id]);
    expect(ev).toMatchObject({ target_type: 'workspace_member', workspace_id: ws.id, method: 'DELETE' });
    expect(ev.request_details).toMatchObject({ deleted_api_keys: 1, role: 'manager' });
    expect((await call('DELETE', `/v1/admin/workspaces/${ws.id}/users/${u.id}`)).status).toBe(404);
  });
});

describe('auto-created user keys (Authentication 6)', () => {
  const autoKeys = (wsId: string, userId: string) =>
    sql("select * from api_key where workspace_id = ? and user_id = ? and creation_mode = 'auto' and deleted_at is null", [wsId, userId]);

  it('creates a key with exactly the auto-create scopes for a new member, with its own audit event', async () => {
    const ws = await makeWorkspace({ settings: { user_api_key_auto_create: true, user_api_key_auto_create_scopes: ['completions.write', 'logs.view'] } });
    const u = await makeUser();
    expect((await call('POST', `/v1/admin/workspaces/${ws.id}/users`, { users: [{ id: u.id, role: 'member' }] })).status).toBe(200);
    const keys = await autoKeys(ws.id, u.id);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ type: 'workspace-user', status: 'active', creation_mode: 'auto', scopes: ['completions.write', 'logs.view'] });
    const [ev] = await sql("select * from audit_event where action = 'api_key.create' and target_id = ?", [keys[0].id]);
    expect(ev).toMatchObject({ target_type: 'api_key', workspace_id: ws.id });
    expect(ev.request_details).toMatchObject({ creation_mode: 'auto', user_id: u.id, scopes: ['completions.write', 'logs.view'] });
    expect(await count("select count(*) n from audit_event where action = 'workspace_member.add' and target_id = ?", [ws.id])).toBe(1);
  });

  it("bounds the scopes by the member's role, defaults to completions.write, and follows expiry and rotation settings", async () => {
    const ws = await makeWorkspace({ settings: { user_api_key_auto_create: true, user_api_key_auto_create_scopes: ['completions.write', 'configs.create'] } });
    const member = await makeUser();
    const manager = await makeUser();
    await call('POST', `/v1/admin/workspaces/${ws.id}/users`, { users: [{ id: member.id, role: 'member' }, { id: manager.id, role: 'manager' }] });
    expect((await autoKeys(ws.id, member.id))[0].scopes).toEqual(['completions.write']);
    expect((await autoKeys(ws.id, manager.id))[0].scopes).toEqual(['completions.write', 'configs.create']);

    const plain = await makeWorkspace({ settings: { user_api_key_auto_create: true, default_api_key_expiry_days: 10, user_api_key_rotation_period: 'weekly' } });
    const p = await makeUser();
    await call('POST', `/v1/admin/workspaces/${plain.id}/users`, { users: [{ id: p.id, role: 'member' }] });
    const [key] = await autoKeys(plain.id, p.id);
    expect(key.scopes).toEqual(['completions.write']);
    const expiresInDays = (new Date(key.expires_at).getTime() - Date.now()) / 86_400_000;
    expect(expiresInDays).toBeGreaterThan(9.9);
    expect(expiresInDays).toBeLessThan(10.1);
    expect(key.rotation_policy).toMatchObject({ rotation_period_days: 7 });
  });

  it('creates none when the setting is off, for role changes, or when the member already holds a user key there', async () => {
    const off = await makeWorkspace();
    const a = await makeUser();
    await call('POST', `/v1/admin/workspaces/${off.id}/users`, { users: [{ id: a.id, role: 'member' }] });
    expect(await autoKeys(off.id, a.id)).toHaveLength(0);

    const on = await makeWorkspace({ settings: { user_api_key_auto_create: true } });
    const admin = await makeUser('admin');
    // An organisation admin may hold a user key in a workspace before joining it.
    await stack.createKey({ name: 'pre', workspace_id: on.slug, user_id: admin.id, scopes: ['completions.write'] }, 'user');
    await call('POST', `/v1/admin/workspaces/${on.id}/users`, { users: [{ id: admin.id, role: 'member' }] });
    expect(await autoKeys(on.id, admin.id)).toHaveLength(0);

    const b = await makeUser();
    await call('POST', `/v1/admin/workspaces/${on.id}/users`, { users: [{ id: b.id, role: 'member' }] });
    await call('POST', `/v1/admin/workspaces/${on.id}/users`, { users: [{ id: b.id, role: 'manager' }] });
    expect(await autoKeys(on.id, b.id)).toHaveLength(1);
  });

  it('creates keys for the initial users of a new workspace, in the same transaction', async () => {
    const u = await makeUser();
    const ws = await makeWorkspace({ users: [u.id], settings: { user_api_key_auto_create: true } });
    expect(await autoKeys(ws.id, u.id)).toHaveLength(1);
    // A failing create leaves neither workspace, membership nor key behind.
    const before = [await count('select count(*) n from workspace'), await count('select count(*) n from api_key'), await count('select count(*) n from audit_event')];
    const bad = await call('POST', '/v1/admin/workspaces', { name: 'half', users: [u.id, crypto.randomUUID()], settings: { user_api_key_auto_create: true } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('users[1]');
    expect([await count('select count(*) n from workspace'), await count('select count(*) n from api_key'), await count('select count(*) n from audit_event')]).toEqual(before);
  });

  it('follows the organisation-only switch for the default workspace', async () => {
    const u = await makeUser();
    await call('PUT', '/v1/admin/organisation/settings', { default_workspace_user_api_key_auto_create: true, user_api_key_auto_create_scopes: ['completions.write', 'prompts.read'] });
    try {
      await call('POST', '/v1/admin/workspaces/ws-default/users', { users: [{ id: u.id, role: 'member' }] });
      const keys = await autoKeys(stack.workspaceId, u.id);
      expect(keys.map((k: any) => k.scopes)).toEqual([['completions.write', 'prompts.read']]);
    } finally {
      await call('PUT', '/v1/admin/organisation/settings', { default_workspace_user_api_key_auto_create: null, user_api_key_auto_create_scopes: null });
    }
  });

  it('returns the secret of auto-created keys once, through GraphQL, and the key works', async () => {
    const ws = await makeWorkspace({ settings: { user_api_key_auto_create: true } });
    const u = await makeUser();
    const r = await gql(
      `mutation($ws: ID!, $input: AddWorkspaceMembersInput!) { addWorkspaceMembers(workspace_id: $ws, input: $input) {
        __typename ... on WorkspaceMembersAdded { workspace_id added updated users { id role } auto_created_api_keys { id user_id key scopes object } } } }`,
      { ws: ws.slug, input: { users: [{ id: u.id, role: 'member' }] } },
    );
    const out = r.body.data.addWorkspaceMembers;
    expect(out).toMatchObject({ __typename: 'WorkspaceMembersAdded', workspace_id: ws.id, added: [u.id], updated: [], users: [{ id: u.id, role: 'member' }] });
    expect(out.auto_created_api_keys).toEqual([{ id: expect.any(String), user_id: u.id, key: expect.stringMatching(/^[A-Za-z0-9]{40,}$/), scopes: ['completions.write'], object: 'api-key' }]);
    const me = await gql('{ me { key_type workspace_id user_id } }', {}, out.auto_created_api_keys[0].key);
    expect(me.body.data.me).toEqual({ key_type: 'workspace-user', workspace_id: ws.id, user_id: u.id });
    const [ev] = await sql("select request_details from audit_event where action = 'api_key.create' and target_id = ?", [out.auto_created_api_keys[0].id]);
    expect(JSON.stringify(ev.request_details)).not.toContain(out.auto_created_api_keys[0].key);
  });
});

describe('authorization', () => {
  it('answers 401 without a key', async () => {
    expect((await call('GET', '/v1/admin/workspaces/ws-default/users', undefined, null)).status).toBe(401);
    expect((await call('POST', '/v1/admin/workspaces/ws-default/users', { users: [] }, null)).status).toBe(401);
  });

  it('answers 403 to workspace keys for every member operation, even in their own workspace', async () => {
    const u = await makeUser();
    await call('POST', '/v1/admin/workspaces/ws-default/users', { users: [{ id: u.id, role: 'member' }] });
    const before = await count('select count(*) n from audit_event');
    for (const [method, path, body] of [
      ['GET', '/v1/admin/workspaces/ws-default/users', undefined],
      ['POST', '/v1/admin/workspaces/ws-default/users', { users: [{ id: u.id, role: 'admin' }] }],
      ['GET', `/v2/workspaces/ws-default/users/${u.id}`, undefined],
      ['PUT', `/v2/workspaces/ws-default/users/${u.id}`, { role: 'admin' }],
      ['DELETE', `/v1/admin/workspaces/ws-default/users/${u.id}`, undefined],
    ] as const) {
      const r = await call(method, path, body, wsKey);
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body.error.code).toBe('missing_scope');
    }
    expect(await count('select count(*) n from audit_event')).toBe(before);
    expect((await sql('select role from workspace_member where user_id = ?', [u.id]))[0].role).toBe('member');
  });

  it('needs the matching workspace_users scope for organisation keys', async () => {
    const reader = await stack.createKey({ name: 'reader', scopes: ['workspace_users.list'] });
    expect((await call('GET', '/v1/admin/workspaces/ws-default/users', undefined, reader.key)).status).toBe(200);
    const u = await makeUser();
    expect((await call('POST', '/v1/admin/workspaces/ws-default/users', { users: [{ id: u.id, role: 'member' }] }, reader.key)).status).toBe(403);
  });
});

describe('GraphQL', () => {
  it('lists, reads, updates and removes members, with typed errors', async () => {
    const ws = await makeWorkspace();
    const u = await makeUser();
    await call('POST', `/v1/admin/workspaces/${ws.id}/users`, { users: [{ id: u.id, role: 'member' }] });
    const list = await gql('query($ws: ID!) { workspaceMembers(workspace_id: $ws, role: "member") { object total data { id email role object } } }', { ws: ws.id });
    expect(list.body.data.workspaceMembers).toEqual({ object: 'list', total: 1, data: [{ id: u.id, email: u.email, role: 'member', object: 'workspace-user' }] });
    const one = await gql('query($ws: ID!, $u: ID!) { workspaceMember(workspace_id: $ws, user_id: $u) { id org_role } }', { ws: ws.slug, u: u.id });
    expect(one.body.data.workspaceMember).toEqual({ id: u.id, org_role: 'member' });

    const E = '... on GatewayError { code param status }';
    const upd = await gql(`mutation($ws: ID!, $u: ID!) { updateWorkspaceMember(workspace_id: $ws, user_id: $u, input: { role: "admin" }) { __typename ... on WorkspaceMember { role } ${E} } }`, { ws: ws.id, u: u.id });
    expect(upd.body.data.updateWorkspaceMember).toEqual({ __typename: 'WorkspaceMember', role: 'admin' });
    const bad = await gql(`mutation($ws: ID!, $u: ID!) { updateWorkspaceMember(workspace_id: $ws, user_id: $u, input: { role: "boss" }) { __typename ${E} } }`, { ws: ws.id, u: u.id });
    expect(bad.body.data.updateWorkspaceMember).toEqual({ __typename: 'GatewayError', code: 'invalid_parameter', param: 'role', status: 400 });
    const addBad = await gql(`mutation($ws: ID!) { addWorkspaceMembers(workspace_id: $ws, input: { users: [{ id: "${crypto.randomUUID()}", role: "member" }] }) { __typename ${E} } }`, { ws: ws.id });
    expect(addBad.body.data.addWorkspaceMembers).toEqual({ __typename: 'GatewayError', code: 'invalid_parameter', param: 'users[0].id', status: 400 });
    const rm = await gql(`mutation($ws: ID!, $u: ID!) { removeWorkspaceMember(workspace_id: $ws, user_id: $u) { __typename ... on WorkspaceMemberRemoved { user_id deleted_api_keys } ${E} } }`, { ws: ws.id, u: u.id });
    expect(rm.body.data.removeWorkspaceMember).toEqual({ __typename: 'WorkspaceMemberRemoved', user_id: u.id, deleted_api_keys: 0 });
    const again = await gql(`mutation($ws: ID!, $u: ID!) { removeWorkspaceMember(workspace_id: $ws, user_id: $u) { __typename ${E} } }`, { ws: ws.id, u: u.id });
    expect(again.body.data.removeWorkspaceMember).toMatchObject({ code: 'not_found', status: 404, param: 'user_id' });
    const denied = await gql('query($ws: ID!) { workspaceMembers(workspace_id: $ws) { total } }', { ws: 'ws-default' }, wsKey);
    expect(denied.body.errors[0].extensions).toMatchObject({ code: 'missing_scope' });
    const actions = await sql("select action from audit_event where workspace_id = ? and action like 'workspace_member.%' order by created_at", [ws.id]);
    expect(actions.map((a: any) => a.action)).toEqual(['workspace_member.add', 'workspace_member.update', 'workspace_member.remove']);
  });
});
