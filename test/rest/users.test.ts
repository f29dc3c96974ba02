import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startStack, type Stack } from '../support/stack.ts';
import { graphqlCall } from '../support/api.ts';

// /v1/admin/users and the GraphQL users, user, updateUser, deleteUser (control-plane-schemas 2.8).

let stack: Stack;
let base: string;
let adminKeyId: string;
let ownerId: string;
const sql = <T = any>(q: string, params: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, params);

async function call(method: string, path: string, body?: unknown, key: string | null = stack.adminKey, extra: Record<string, string> = {}) {
  const headers: Record<string, string> = { ...extra };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (key) headers['x-gateway-api-key'] = key;
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
}
const get = (path: string, key: string | null = stack.adminKey) => call('GET', path, undefined, key);

const gql = graphqlCall(() => base, () => stack.adminKey);

const USER_KEYS = ['created_at', 'email', 'first_name', 'id', 'last_name', 'last_updated_at', 'object', 'role', 'workspace_ids'];
const count = async (table: string, where = 'true', params: unknown[] = []) => Number((await sql<{ n: string }>(`select count(*) n from ${table} where ${where}`, params))[0]!.n);

async function addUser(email: string, role: 'owner' | 'admin' | 'member', opts: { first?: string; workspaceRole?: string; createdAt?: string } = {}): Promise<string> {
  const id = crypto.randomUUID();
  await sql('insert into app_user (id, organisation_id, email, role, first_name, last_name, created_at) values (?, ?, ?, ?, ?, ?, ?)', [
    id, stack.organisationId, email, role, opts.first ?? null, opts.first ? 'Tester' : null, opts.createdAt ?? new Date().toISOString(),
  ]);
  if (opts.workspaceRole) {
    await sql('insert into workspace_member (id, workspace_id, user_id, role) values (?, ?, ?, ?)', [crypto.randomUUID(), stack.workspaceId, id, opts.workspaceRole]);
  }
  return id;
}

let alice: string;
let bob: string;
let carol: string;

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  base = stack.controlPlane.httpUrl;
  adminKeyId = (await sql<{ id: string }>("select id from api_key where creation_mode = 'bootstrap'"))[0]!.id;
  ownerId = (await sql<{ id: string }>("select id from app_user where role = 'owner'"))[0]!.id;
  // Created in a known order after the bootstrap owner, so paging is predictable.
  const t = Date.now();
  alice = await addUser('Alice@Example.com', 'admin', { first: 'Alice', createdAt: new Date(t + 1000).toISOString() });
  bob = await addUser('bob@example.com', 'member', { createdAt: new Date(t + 2000).toISOString() });
  carol = await addUser('carol@example.com', 'member', { first: 'Carol', workspaceRole: 'member', createdAt: new Date(t + 3000).toISOString() });
});
afterAll(async () => stack?.close());

describe('GET /v1/admin/users', () => {
  it('lists the organisation users as {object:"list", total, data} of User objects', async () => {
    const r = await get('/v1/admin/users');
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['data', 'object', 'total']);
    expect(r.body.object).toBe('list');
    expect(r.body.total).toBe(4);
    expect(r.body.data.map((u: any) => u.id)).toEqual([ownerId, alice, bob, carol]);
    for (const u of r.body.data) expect(Object.keys(u).sort()).toEqual(USER_KEYS);
    const c = r.body.data[3];
    expect(c).toMatchObject({ object: 'user', id: carol, email: 'carol@example.com', role: 'member', first_name: 'Carol', last_name: 'Tester', workspace_ids: [stack.workspaceId] });
    expect(r.body.data[2]).toMatchObject({ first_name: null, last_name: null, workspace_ids: [] });
    expect(Date.parse(c.created_at)).not.toBeNaN();
    expect(Date.parse(c.last_updated_at)).not.toBeNaN();
  });

  it('pages with camelCase currentPage/pageSize, and accepts current_page/page_size as aliases', async () => {
    const p0 = await get('/v1/admin/users?pageSize=3&currentPage=0');
    const p1 = await get('/v1/admin/users?pageSize=3&currentPage=1');
    expect(p0.body.data.map((u: any) => u.id)).toEqual([ownerId, alice, bob]);
    expect(p1.body.data.map((u: any) => u.id)).toEqual([carol]);
    expect([p0.body.total, p1.body.total]).toEqual([4, 4]);
    const snake = await get('/v1/admin/users?page_size=3&current_page=1');
    expect(snake.body.data.map((u: any) => u.id)).toEqual([carol]);
  });

  it('filters by role and by e-mail (case-insensitively)', async () => {
    const members = await get('/v1/admin/users?role=member');
    expect(members.body.data.map((u: any) => u.id)).toEqual([bob, carol]);
    expect(members.body.total).toBe(2);
    const byEmail = await get(`/v1/admin/users?email=${encodeURIComponent('alice@EXAMPLE.com')}`);
    expect(byEmail.body.data.map((u: any) => u.id)).toEqual([alice]);
    expect((await get('/v1/admin/users?email=nobody@example.com')).body).toEqual({ object: 'list', total: 0, data: [] });
  });

  it.each([
    ['pageSize=0', 'pageSize'],
    ['pageSize=abc', 'pageSize'],
    ['currentPage=-1', 'currentPage'],
    ['page_size=5000', 'pageSize'],
    ['role=boss', 'role'],
  ])('answers 400 naming the parameter for %s', async (qs, param) => {
    const r = await get(`/v1/admin/users?${qs}`);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param });
  });

  it('answers 401 without a valid key and 403 for keys without organisation_users scopes', async () => {
    expect((await get('/v1/admin/users', null)).status).toBe(401);
    expect((await get('/v1/admin/users', 'not-a-real-key-0123456789abcdef')).status).toBe(401);
    const ws = await stack.createKey({ name: 'ws', workspace_id: 'ws-default', scopes: ['completions.write'] });
    const r = await get('/v1/admin/users', ws.key);
    expect(r.status).toBe(403);
    expect(r.body.error.type).toBe('permission_error');
    const org = await stack.createKey({ name: 'org-narrow', scopes: ['organisation_users.read'] });
    expect((await get('/v1/admin/users', org.key)).status).toBe(403);
    expect((await get(`/v1/admin/users/${alice}`, org.key)).status).toBe(200);
  });
});

describe('GET /v1/admin/users/{userId}', () => {
  it('returns the User object', async () => {
    const r = await get(`/v1/admin/users/${carol}`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(USER_KEYS);
    expect(r.body).toMatchObject({ object: 'user', id: carol, role: 'member', workspace_ids: [stack.workspaceId] });
  });

  it('answers 404 for unknown ids, ids that are not uuids and users of another organisation', async () => {
    for (const id of [crypto.randomUUID(), 'nope']) {
      const r = await get(`/v1/admin/users/${id}`);
      expect(r.status).toBe(404);
      expect(r.body.error.type).toBe('not_found_error');
    }
    const otherOrg = crypto.randomUUID();
    await sql("insert into organisation (id, name, slug) values (?, 'other', 'other-org')", [otherOrg]);
    const stranger = crypto.randomUUID();
    await sql("insert into app_user (id, organisation_id, email, role) values (?, ?, 'x@other.example', 'member')", [stranger, otherOrg]);
    expect((await get(`/v1/admin/users/${stranger}`)).status).toBe(404);
    expect((await get('/v1/admin/users')).body.total).toBe(4);
  });
});

describe('PUT /v1/admin/users/{userId}', () => {
  it('changes the role, answers {} and writes one user.update audit event', async () => {
    const r = await call('PUT', `/v1/admin/users/${bob}`, { role: 'admin' }, stack.adminKey, { 'user-agent': 'users-test' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
    expect((await sql("select role from app_user where id = ?", [bob]))[0].role).toBe('admin');
    const events = await sql('select * from audit_event where target_id = ? and action = ?', [bob, 'user.update']);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ target_type: 'user', actor_type: 'api_key', actor_id: adminKeyId, method: 'PUT', uri: `/v1/admin/users/${bob}`, user_agent: 'users-test' });
    expect(events[0].ip).toMatch(/127\.0\.0\.1/);
    expect(events[0].request_details).toMatchObject({ role: 'admin', previous_role: 'member', email: 'bob@example.com' });
    expect((await call('PUT', `/v1/admin/users/${bob}`, { role: 'member' })).status).toBe(200);
  });

  it.each([
    [{ role: 'owner' }, 'role', /owner role cannot be assigned/],
    [{ role: 'boss' }, 'role', /admin or member/],
    [{}, 'role', /required/],
    [{ role: 'admin', extra: 1 }, 'extra', /extra/],
  ])('answers 400 naming the field for %j, changing nothing', async (body, param, message) => {
    const before = await count('audit_event');
    const r = await call('PUT', `/v1/admin/users/${carol}`, body);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param });
    expect(r.body.error.message).toMatch(message);
    expect((await sql('select role from app_user where id = ?', [carol]))[0].role).toBe('member');
    expect(await count('audit_event')).toBe(before);
  });

  it('answers 400 for a missing or malformed body, 404 for an unknown user, 403 without the scope', async () => {
    expect((await call('PUT', `/v1/admin/users/${carol}`, '{oops')).body.error.code).toBe('invalid_json');
    expect((await call('PUT', `/v1/admin/users/${crypto.randomUUID()}`, { role: 'admin' })).status).toBe(404);
    const reader = await stack.createKey({ name: 'reader', scopes: ['organisation_users.read', 'organisation_users.list'] });
    const r = await call('PUT', `/v1/admin/users/${carol}`, { role: 'admin' }, reader.key);
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('missing_scope');
  });

  it('refuses to demote the last owner (409) and allows it while another owner remains', async () => {
    const before = await count('audit_event');
    const r = await call('PUT', `/v1/admin/users/${ownerId}`, { role: 'admin' });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ type: 'conflict_error', code: 'conflict' });
    expect(r.body.error.message).toMatch(/last owner/);
    expect((await sql('select role from app_user where id = ?', [ownerId]))[0].role).toBe('owner');
    expect(await count('audit_event')).toBe(before);

    const second = await addUser('second-owner@example.com', 'owner');
    expect((await call('PUT', `/v1/admin/users/${second}`, { role: 'member' })).status).toBe(200);
    expect((await call('PUT', `/v1/admin/users/${ownerId}`, { role: 'admin' })).status).toBe(409);
    await sql('delete from app_user where id = ?', [second]);
  });

  it('never leaves the organisation without an owner when two owners are demoted at once', async () => {
    const second = await addUser('race-owner@example.com', 'owner');
    const results = await Promise.all([ownerId, second].map((id) => call('PUT', `/v1/admin/users/${id}`, { role: 'admin' })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await count('app_user', "role = 'owner' and organisation_id = ?", [stack.organisationId])).toBe(1);
    // Put things back: the bootstrap owner stays the owner.
    await sql("update app_user set role = 'owner' where id = ?", [ownerId]);
    await sql('delete from app_user where id = ?', [second]);
  });
});

describe('DELETE /v1/admin/users/{userId}', () => {
  it('removes the user and their memberships, and their keys stop working at once', async () => {
    const dave = await addUser('dave@example.com', 'admin', { workspaceRole: 'manager' });
    const personal = await stack.createKey({ name: 'dave-org', user_id: dave, scopes: ['organisation_user_api_keys.list'] }, 'user');
    const wsKey = await stack.createKey({ name: 'dave-ws', workspace_id: 'ws-default', user_id: dave, scopes: ['workspace_user_api_keys.list'] }, 'user');
    expect((await get('/v2/api-keys', personal.key)).status).toBe(200);
    expect((await get('/v2/api-keys', wsKey.key)).status).toBe(200);

    const r = await call('DELETE', `/v1/admin/users/${dave}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
    expect((await get('/v2/api-keys', personal.key)).status).toBe(401);
    expect((await get('/v2/api-keys', wsKey.key)).status).toBe(401);
    expect(await count('app_user', 'id = ?', [dave])).toBe(0);
    expect(await count('workspace_member', 'user_id = ?', [dave])).toBe(0);
    expect(await count('api_key', 'user_id = ? and deleted_at is null', [dave])).toBe(0);
    expect((await get(`/v1/admin/users/${dave}`)).status).toBe(404);

    const events = await sql("select * from audit_event where action = 'user.delete' and target_id = ?", [dave]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ target_type: 'user', actor_id: adminKeyId, method: 'DELETE' });
    expect(events[0].request_details.deleted_api_key_ids.sort()).toEqual([personal.id, wsKey.id].sort());
    expect(JSON.stringify(events[0])).not.toContain(personal.key);
  });

  it('refuses to remove the last owner (409), answers 404 for unknown users and 403 without the scope', async () => {
    const r = await call('DELETE', `/v1/admin/users/${ownerId}`);
    expect(r.status).toBe(409);
    expect(r.body.error.message).toMatch(/last owner/);
    expect(await count('app_user', 'id = ?', [ownerId])).toBe(1);
    expect((await call('DELETE', `/v1/admin/users/${crypto.randomUUID()}`)).status).toBe(404);
    const lister = await stack.createKey({ name: 'lister', scopes: ['organisation_users.list'] });
    expect((await call('DELETE', `/v1/admin/users/${carol}`, undefined, lister.key)).status).toBe(403);
    expect((await call('DELETE', `/v1/admin/users/${carol}`, undefined, null)).status).toBe(401);
    expect(await count('app_user', 'id = ?', [carol])).toBe(1);
  });
});

describe('GraphQL users, user, updateUser, deleteUser', () => {
  const ERR = '... on GatewayError { message code type param status }';

  it('lists with camelCase paging and filters, and gets one user', async () => {
    const r = await gql('query($p: Int, $s: Int) { users(currentPage: $p, pageSize: $s, role: "member") { object total data { id role workspace_ids } } }', { p: 1, s: 1 });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.users).toEqual({ object: 'list', total: 2, data: [{ id: carol, role: 'member', workspace_ids: [stack.workspaceId] }] });
    const one = await gql(`query($id: ID!) { user(id: $id) { object id email first_name last_name } }`, { id: alice });
    expect(one.body.data.user).toEqual({ object: 'user', id: alice, email: 'Alice@Example.com', first_name: 'Alice', last_name: 'Tester' });
    const missing = await gql(`query($id: ID!) { user(id: $id) { id } }`, { id: crypto.randomUUID() });
    expect(missing.body.errors[0].extensions).toMatchObject({ code: 'not_found', type: 'not_found_error' });
    const bad = await gql('{ users(pageSize: 0) { total } }');
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'invalid_parameter', param: 'pageSize' });
    const anon = await gql('{ users { total } }', {}, null);
    expect(anon.body.errors[0].extensions.code).toBe('invalid_api_key');
  });

  it('updates a role, and answers typed errors for owner, last owner and missing scope', async () => {
    const M = `mutation($id: ID!, $role: String) { updateUser(id: $id, input: { role: $role }) { __typename ... on User { id role } ${ERR} } }`;
    const ok = await gql(M, { id: carol, role: 'admin' });
    expect(ok.body.data.updateUser).toEqual({ __typename: 'User', id: carol, role: 'admin' });
    expect(await count('audit_event', "action = 'user.update' and target_id = ?", [carol])).toBe(1);
    const owner = await gql(M, { id: carol, role: 'owner' });
    expect(owner.body.data.updateUser).toMatchObject({ __typename: 'GatewayError', code: 'invalid_parameter', param: 'role', status: 400 });
    const last = await gql(M, { id: ownerId, role: 'member' });
    expect(last.body.data.updateUser).toMatchObject({ __typename: 'GatewayError', type: 'conflict_error', status: 409 });
    const ws = await stack.createKey({ name: 'ws2', workspace_id: 'ws-default', scopes: ['completions.write'] });
    const denied = await gql(M, { id: carol, role: 'member' }, ws.key);
    expect(denied.body.data.updateUser).toMatchObject({ __typename: 'GatewayError', status: 403 });
    expect((await sql('select role from app_user where id = ?', [carol]))[0].role).toBe('admin');
  });

  it('deletes a user, and refuses the last owner', async () => {
    const erin = await addUser('erin@example.com', 'member', { workspaceRole: 'member' });
    const M = `mutation($id: ID!) { deleteUser(id: $id) { __typename ... on DeletedUser { id deleted } ${ERR} } }`;
    const ok = await gql(M, { id: erin });
    expect(ok.body.data.deleteUser).toEqual({ __typename: 'DeletedUser', id: erin, deleted: true });
    expect(await count('app_user', 'id = ?', [erin])).toBe(0);
    expect(await count('audit_event', "action = 'user.delete' and target_id = ?", [erin])).toBe(1);
    const last = await gql(M, { id: ownerId });
    expect(last.body.data.deleteUser).toMatchObject({ __typename: 'GatewayError', status: 409 });
    const gone = await gql(M, { id: erin });
    expect(gone.body.data.deleteUser).toMatchObject({ __typename: 'GatewayError', status: 404, code: 'not_found' });
  });
});
