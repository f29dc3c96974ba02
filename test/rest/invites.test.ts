import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { hashApiKey } from '../../src/domain/api-key-secret.ts';
import { acceptInvite } from '../../src/services/invites/accept-invite.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { graphqlCall } from '../support/api.ts';

// /v1/admin/users/invites, the GraphQL invite operations, and accepting an invite
// (POST /v1/invites/accept and the public acceptInvite mutation: no API key, the token is the credential).

let stack: Stack;
let base: string;
let adminKeyId: string;
let ws2: string;
const sql = <T = any>(q: string, params: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, params);
const count = async (table: string, where = 'true', params: unknown[] = []) => Number((await sql<{ n: string }>(`select count(*) n from ${table} where ${where}`, params))[0]!.n);

async function call(method: string, path: string, body?: unknown, key: string | null = stack.adminKey, extra: Record<string, string> = {}) {
  const headers: Record<string, string> = { ...extra };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (key) headers['x-gateway-api-key'] = key;
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
}
const get = (path: string, key: string | null = stack.adminKey) => call('GET', path, undefined, key);
const invite = (body: unknown, key: string | null = stack.adminKey) => call('POST', '/v1/admin/users/invites', body, key);

const gql = graphqlCall(() => base, () => stack.adminKey);

/** The public accept route, over HTTP without an API key. */
async function accept(body: unknown, query = '') {
  const res = await fetch(`${base}/v1/invites/accept${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'invitee-browser' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const tokenOf = (link: string): string => new URL(link, 'http://x').searchParams.get('token')!;
const INVITE_KEYS = ['accepted_at', 'created_at', 'email', 'expires_at', 'id', 'invited_by', 'object', 'role', 'status', 'workspaces'];
let n = 0;
const email = (tag: string) => `${tag}-${++n}@example.com`;

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  base = stack.controlPlane.httpUrl;
  adminKeyId = (await sql<{ id: string }>("select id from api_key where creation_mode = 'bootstrap'"))[0]!.id;
  ws2 = crypto.randomUUID();
  await sql("insert into workspace (id, organisation_id, slug, name) values (?, ?, 'ws-second', 'Second')", [ws2, stack.organisationId]);
});
afterAll(async () => stack?.close());

describe('POST /v1/admin/users/invites', () => {
  it('creates a pending invite, answers {id, invite_link} and stores only the token hash', async () => {
    const before = Date.now();
    const r = await invite({ email: 'Newcomer@Example.com', role: 'member', workspaces: [{ id: 'ws-default', role: 'manager' }, { id: ws2, role: 'member' }] });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['id', 'invite_link']);
    expect(r.body.invite_link).toMatch(/^\/v1\/invites\/accept\?token=[A-Za-z0-9]{48}$/);
    const token = tokenOf(r.body.invite_link);
    const [row] = await sql('select * from invite where id = ?', [r.body.id]);
    expect(row).toMatchObject({
      organisation_id: stack.organisationId, email: 'newcomer@example.com', role: 'member', status: 'pending',
      token_hash: await hashApiKey(token), invited_by: adminKeyId, accepted_at: null, workspace_api_key_scopes: null,
    });
    expect(row.workspaces).toEqual([{ workspace_id: stack.workspaceId, role: 'manager' }, { workspace_id: ws2, role: 'member' }]);
    const ttl = new Date(row.expires_at).getTime() - before;
    expect(ttl).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(ttl).toBeLessThanOrEqual(7 * 86_400_000 + 60_000);
    expect(JSON.stringify(row)).not.toContain(token);

    const events = await sql("select * from audit_event where action = 'invite.create' and target_id = ?", [r.body.id]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ target_type: 'invite', actor_type: 'api_key', actor_id: adminKeyId, method: 'POST', uri: '/v1/admin/users/invites' });
    expect(events[0].request_details).toMatchObject({ email: 'newcomer@example.com', role: 'member' });
    expect(JSON.stringify(events[0])).not.toContain(token);
  });

  it.each([
    [{ role: 'member', workspaces: [] }, 'email'],
    [{ email: 'not-an-email', role: 'member', workspaces: [] }, 'email'],
    [{ email: 'x@example.com', role: 'owner', workspaces: [] }, 'role'],
    [{ email: 'x@example.com', workspaces: [] }, 'role'],
    [{ email: 'x@example.com', role: 'member' }, 'workspaces'],
    [{ email: 'x@example.com', role: 'member', workspaces: [{ id: 'ws-default', role: 'member' }, { id: 'ws-nope', role: 'member' }] }, 'workspaces[1].id'],
    [{ email: 'x@example.com', role: 'member', workspaces: [{ id: crypto.randomUUID(), role: 'member' }] }, 'workspaces[0].id'],
    [{ email: 'x@example.com', role: 'member', workspaces: [{ id: 'ws-default', role: 'member' }, { id: 'ws-default', role: 'admin' }] }, 'workspaces[1].id'],
    [{ email: 'x@example.com', role: 'member', workspaces: [{ id: 'ws-default', role: 'owner' }] }, 'workspaces[0].role'],
    [{ email: 'x@example.com', role: 'member', workspaces: [{ id: 'ws-default' }] }, 'workspaces[0].role'],
    [{ email: 'x@example.com', role: 'member', workspaces: [{ id: 'ws-default', role: 'member' }], workspace_api_key_details: { scopes: ['completions.write', 'no.such'] } }, 'workspace_api_key_details.scopes[1]'],
    [{ email: 'x@example.com', role: 'member', workspaces: [{ id: 'ws-default', role: 'member' }], workspace_api_key_details: { scopes: ['workspaces.create'] } }, 'workspace_api_key_details.scopes[0]'],
    [{ email: 'x@example.com', role: 'member', workspaces: [{ id: 'ws-default', role: 'member' }], workspace_api_key_details: {} }, 'workspace_api_key_details.scopes'],
    [{ email: 'x@example.com', role: 'member', workspaces: [], workspace_api_key_details: { scopes: ['completions.write'] } }, 'workspace_api_key_details'],
    [{ email: 'x@example.com', role: 'member', workspaces: [], surprise: true }, 'surprise'],
  ])('answers 400 naming the field for %j and writes nothing', async (body, param) => {
    const before = [await count('invite'), await count('audit_event')];
    const r = await invite(body);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param });
    expect([await count('invite'), await count('audit_event')]).toEqual(before);
  });

  it('refuses key scopes beyond the inviter (scope_exceeds_creator) or the invitee role (scope_exceeds_role): 403', async () => {
    const ws = [{ id: 'ws-default', role: 'member' }];
    // The Admin key cannot use feedback.* (workspace-only operations) but may grant them to workspace keys.
    const feedback = await invite({ email: email('s'), role: 'member', workspaces: ws, workspace_api_key_details: { scopes: ['feedback.create'] } });
    expect(feedback.status).toBe(200);
    const narrow = await stack.createKey({ name: 'inviter', scopes: ['invites.create', 'completions.write'] });
    const beyondInviter = await invite({ email: email('s'), role: 'admin', workspaces: ws, workspace_api_key_details: { scopes: ['completions.write', 'configs.read'] } }, narrow.key);
    expect(beyondInviter.status).toBe(403);
    expect(beyondInviter.body.error.code).toBe('scope_exceeds_creator');
    expect(beyondInviter.body.error.message).toContain('configs.read');
    // A workspace member may not hold configs.create (roleCeiling).
    const beyondRole = await invite({ email: email('s'), role: 'member', workspaces: ws, workspace_api_key_details: { scopes: ['configs.create'] } });
    expect(beyondRole.status).toBe(403);
    expect(beyondRole.body.error.code).toBe('scope_exceeds_role');
    // …which a manager may.
    expect((await invite({ email: email('s'), role: 'member', workspaces: [{ id: 'ws-default', role: 'manager' }], workspace_api_key_details: { scopes: ['configs.create'] } })).status).toBe(200);
    const ok = await invite({ email: email('s'), role: 'member', workspaces: ws, workspace_api_key_details: { scopes: ['completions.write'] } }, narrow.key);
    expect(ok.status).toBe(200);
    expect((await sql('select invited_by from invite where id = ?', [ok.body.id]))[0].invited_by).toBe(narrow.id);
  });

  it('answers 409 for a user of the organisation and for a pending invite, and supersedes an expired one', async () => {
    await sql("insert into app_user (id, organisation_id, email, role) values (?, ?, 'Member@Example.com', 'member')", [crypto.randomUUID(), stack.organisationId]);
    const owner = await invite({ email: 'member@EXAMPLE.com', role: 'admin', workspaces: [] });
    expect(owner.status).toBe(409);
    expect(owner.body.error).toMatchObject({ type: 'conflict_error', param: 'email' });
    const addr = email('dup');
    const first = await invite({ email: addr, role: 'member', workspaces: [] });
    expect(first.status).toBe(200);
    const again = await invite({ email: addr.toUpperCase(), role: 'admin', workspaces: [] });
    expect(again.status).toBe(409);
    expect(await count('invite', 'lower(email) = ?', [addr])).toBe(1);
    await sql("update invite set expires_at = now() - interval '1 minute' where id = ?", [first.body.id]);
    const renewed = await invite({ email: addr, role: 'admin', workspaces: [] });
    expect(renewed.status).toBe(200);
    expect((await get(`/v1/admin/users/invites/${first.body.id}`)).body.status).toBe('expired');
    expect((await get(`/v1/admin/users/invites/${renewed.body.id}`)).body.status).toBe('pending');
  });

  it('lets only one of two simultaneous invites for the same e-mail through', async () => {
    const addr = email('race');
    const rs = await Promise.all([0, 1, 2].map(() => invite({ email: addr, role: 'member', workspaces: [] })));
    expect(rs.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    expect(await count('invite', 'email = ?', [addr])).toBe(1);
  });

  it('answers 401 without a key and 403 for keys without invites.create', async () => {
    expect((await invite({ email: email('a'), role: 'member', workspaces: [] }, null)).status).toBe(401);
    const ws = await stack.createKey({ name: 'ws', workspace_id: 'ws-default', scopes: ['completions.write'] });
    expect((await invite({ email: email('a'), role: 'member', workspaces: [] }, ws.key)).status).toBe(403);
    const lister = await stack.createKey({ name: 'lister', scopes: ['invites.list', 'invites.read'] });
    const r = await invite({ email: email('a'), role: 'member', workspaces: [] }, lister.key);
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('missing_scope');
  });
});

describe('GET /v1/admin/users/invites and /{inviteId}', () => {
  let ids: string[] = [];
  const tag = `list-${Date.now()}`;

  beforeAll(async () => {
    ids = [];
    for (const [i, role] of (['admin', 'member', 'member'] as const).entries()) {
      const r = await invite({ email: `${tag}-${i}@example.com`, role, workspaces: [{ id: 'ws-second', role: 'member' }] });
      ids.push(r.body.id);
    }
  });

  it('returns the Invite object', async () => {
    const r = await get(`/v1/admin/users/invites/${ids[0]}`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(INVITE_KEYS);
    expect(r.body).toMatchObject({ object: 'invite', id: ids[0], email: `${tag}-0@example.com`, role: 'admin', status: 'pending', accepted_at: null, invited_by: adminKeyId, workspaces: [{ workspace_id: ws2, role: 'member' }] });
    expect(Date.parse(r.body.expires_at) - Date.parse(r.body.created_at)).toBe(7 * 86_400_000);
    expect((await get(`/v1/admin/users/invites/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await get('/v1/admin/users/invites/nope')).status).toBe(404);
  });

  it('lists newest first with camelCase paging and filters role, email and status', async () => {
    const all = await get('/v1/admin/users/invites?pageSize=1000');
    expect(all.status).toBe(200);
    expect(all.body.object).toBe('list');
    expect(all.body.total).toBe(all.body.data.length);
    const mine = all.body.data.filter((i: any) => i.email.startsWith(tag)).map((i: any) => i.id);
    expect(mine).toEqual([...ids].reverse());
    for (const i of all.body.data) expect(Object.keys(i).sort()).toEqual(INVITE_KEYS);

    const p0 = await get('/v1/admin/users/invites?pageSize=2&currentPage=0');
    const p1 = await get('/v1/admin/users/invites?page_size=2&current_page=1');
    expect(p0.body.data).toHaveLength(2);
    expect(p1.body.data[0].id).toBe(all.body.data[2].id);
    expect(p0.body.total).toBe(all.body.total);

    const byEmail = await get(`/v1/admin/users/invites?email=${encodeURIComponent(`${tag}-1@EXAMPLE.com`)}`);
    expect(byEmail.body.data.map((i: any) => i.id)).toEqual([ids[1]]);
    const admins = await get('/v1/admin/users/invites?role=admin&pageSize=1000');
    expect(admins.body.data.every((i: any) => i.role === 'admin')).toBe(true);
    expect(admins.body.data.map((i: any) => i.id)).toContain(ids[0]);
    expect(admins.body.data.map((i: any) => i.id)).not.toContain(ids[1]);

    await sql("update invite set expires_at = now() - interval '1 second' where id = ?", [ids[2]]);
    const expired = await get('/v1/admin/users/invites?status=expired&pageSize=1000');
    expect(expired.body.data.map((i: any) => i.id)).toContain(ids[2]);
    expect(expired.body.data.every((i: any) => i.status === 'expired')).toBe(true);
    const pending = await get('/v1/admin/users/invites?status=pending&pageSize=1000');
    expect(pending.body.data.map((i: any) => i.id)).not.toContain(ids[2]);
    expect(pending.body.data.map((i: any) => i.id)).toContain(ids[1]);
    expect(pending.body.data.every((i: any) => i.status === 'pending')).toBe(true);
  });

  it('answers 400 for bad filters and paging, 401 and 403 as for every admin list', async () => {
    for (const [qs, param] of [['status=gone', 'status'], ['role=owner', 'role'], ['pageSize=0', 'pageSize'], ['currentPage=x', 'currentPage']]) {
      const r = await get(`/v1/admin/users/invites?${qs}`);
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe(param);
    }
    expect((await get('/v1/admin/users/invites', null)).status).toBe(401);
    const creator = await stack.createKey({ name: 'creator', scopes: ['invites.create'] });
    expect((await get('/v1/admin/users/invites', creator.key)).status).toBe(403);
    expect((await get(`/v1/admin/users/invites/${ids[0]}`, creator.key)).status).toBe(403);
  });
});

describe('DELETE /v1/admin/users/invites/{inviteId} and POST …/resend', () => {
  it('revokes: {} and the invite stays, cancelled; its token no longer accepts (410)', async () => {
    const r = await invite({ email: email('revoke'), role: 'member', workspaces: [] });
    const token = tokenOf(r.body.invite_link);
    const del = await call('DELETE', `/v1/admin/users/invites/${r.body.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({});
    expect((await get(`/v1/admin/users/invites/${r.body.id}`)).body.status).toBe('cancelled');
    expect(await count('audit_event', "action = 'invite.delete' and target_id = ?", [r.body.id])).toBe(1);
    const again = await call('DELETE', `/v1/admin/users/invites/${r.body.id}`);
    expect(again.status).toBe(409);
    const a = await accept({ token });
    expect(a.status).toBe(410);
    expect(a.body.error.code).toBe('invite_cancelled');
    expect((await call('DELETE', `/v1/admin/users/invites/${crypto.randomUUID()}`)).status).toBe(404);
    const reader = await stack.createKey({ name: 'reader', scopes: ['invites.read'] });
    const x = await invite({ email: email('revoke'), role: 'member', workspaces: [] });
    expect((await call('DELETE', `/v1/admin/users/invites/${x.body.id}`, undefined, reader.key)).status).toBe(403);
    expect((await get(`/v1/admin/users/invites/${x.body.id}`)).body.status).toBe('pending');
  });

  it('resends with a new token ({inviteLink}): the old token stops working, the new one works', async () => {
    const addr = email('resend');
    const r = await invite({ email: addr, role: 'member', workspaces: [{ id: 'ws-default', role: 'member' }] });
    const oldToken = tokenOf(r.body.invite_link);
    await sql("update invite set expires_at = now() + interval '1 hour' where id = ?", [r.body.id]);
    const res = await call('POST', `/v1/admin/users/invites/${r.body.id}/resend`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['inviteLink']);
    const newToken = tokenOf(res.body.inviteLink);
    expect(newToken).not.toBe(oldToken);
    const [row] = await sql('select token_hash, expires_at from invite where id = ?', [r.body.id]);
    expect(row.token_hash).toBe(await hashApiKey(newToken));
    expect(new Date(row.expires_at).getTime()).toBeGreaterThan(Date.now() + 6 * 86_400_000);
    const events = await sql("select * from audit_event where action = 'invite.resend' and target_id = ?", [r.body.id]);
    expect(events).toHaveLength(1);
    expect(JSON.stringify(events[0])).not.toContain(newToken);

    const old = await accept({ token: oldToken });
    expect(old.status).toBe(404);
    expect(old.body.error.code).toBe('invite_not_found');
    const ok = await accept({ token: newToken });
    expect(ok.status).toBe(200);
    // Accepted invites are not resent.
    const late = await call('POST', `/v1/admin/users/invites/${r.body.id}/resend`);
    expect(late.status).toBe(409);
    expect((await call('POST', `/v1/admin/users/invites/${crypto.randomUUID()}/resend`)).status).toBe(404);
  });

  it('renews an expired pending invite on resend', async () => {
    const r = await invite({ email: email('renew'), role: 'member', workspaces: [] });
    await sql("update invite set expires_at = now() - interval '1 day' where id = ?", [r.body.id]);
    expect((await get(`/v1/admin/users/invites/${r.body.id}`)).body.status).toBe('expired');
    const res = await call('POST', `/v1/admin/users/invites/${r.body.id}/resend`);
    expect(res.status).toBe(200);
    expect((await get(`/v1/admin/users/invites/${r.body.id}`)).body.status).toBe('pending');
    expect((await accept({ token: tokenOf(res.body.inviteLink) })).status).toBe(200);
  });
});

describe('POST /v1/invites/accept', () => {
  it('creates the user, the memberships and one key per workspace with exactly the requested scopes, once', async () => {
    const addr = email('join');
    const scopes = ['completions.write', 'workspace_user_api_keys.list'];
    const created = await invite({ email: addr, role: 'member', workspaces: [{ id: 'ws-default', role: 'manager' }, { id: 'ws-second', role: 'admin' }], workspace_api_key_details: { scopes } });
    const token = tokenOf(created.body.invite_link);

    const r = await accept({ token, first_name: 'Jo', last_name: 'Iner' });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['api_keys', 'organisation_id', 'user_id', 'workspaces']);
    expect(r.body.organisation_id).toBe(stack.organisationId);
    expect(r.body.workspaces).toEqual([{ workspace_id: stack.workspaceId, role: 'manager' }, { workspace_id: ws2, role: 'admin' }]);
    expect(r.body.api_keys).toHaveLength(2);
    expect(r.body.api_keys.map((k: any) => k.workspace_id)).toEqual([stack.workspaceId, ws2]);

    const user = await get(`/v1/admin/users/${r.body.user_id}`);
    expect(user.body).toMatchObject({ email: addr, role: 'member', first_name: 'Jo', last_name: 'Iner', workspace_ids: [stack.workspaceId, ws2] });
    const keys = await sql('select * from api_key where user_id = ? order by created_at', [r.body.user_id]);
    expect(keys).toHaveLength(2);
    for (const [i, k] of keys.entries()) {
      const raw = r.body.api_keys.find((x: any) => x.id === k.id);
      expect(k).toMatchObject({ type: 'workspace-user', creation_mode: 'auto', status: 'active', deleted_at: null });
      expect(k.scopes).toEqual(scopes);
      expect(k.key_hash).toBe(await hashApiKey(raw.key));
      expect(raw.key).toMatch(/^[A-Za-z0-9]{48}$/);
      expect(i).toBeLessThan(2);
    }
    const inv = await get(`/v1/admin/users/invites/${created.body.id}`);
    expect(inv.body.status).toBe('accepted');
    expect(Date.parse(inv.body.accepted_at)).not.toBeNaN();

    // The keys work at once, and list only their own user's keys.
    const listed = await get('/v2/api-keys', r.body.api_keys[0].key);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((k: any) => k.id)).toEqual([r.body.api_keys[0].id]);

    // Single use.
    const before = [await count('app_user'), await count('api_key'), await count('workspace_member'), await count('audit_event')];
    const second = await accept({ token });
    expect(second.status).toBe(404);
    expect(second.body.error).toMatchObject({ code: 'invite_not_found', type: 'not_found_error' });
    expect([await count('app_user'), await count('api_key'), await count('workspace_member'), await count('audit_event')]).toEqual(before);

    // One audit event, by the system on the invitee's behalf, with no token and no key.
    const events = await sql("select * from audit_event where action = 'invite.accept' and target_id = ?", [created.body.id]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      organisation_id: stack.organisationId, actor_type: 'system', actor_id: null, target_type: 'invite',
      method: 'POST', uri: '/v1/invites/accept', user_agent: 'invitee-browser',
    });
    expect(events[0].request_details).toMatchObject({ invite_id: created.body.id, email: addr, user_id: r.body.user_id, user_created: true });
    expect(events[0].request_details.api_key_ids.sort()).toEqual(r.body.api_keys.map((k: any) => k.id).sort());
    const recorded = JSON.stringify(events[0]);
    expect(recorded).not.toContain(token);
    for (const k of r.body.api_keys) expect(recorded).not.toContain(k.key);

    // Removing the user makes their keys fail.
    expect((await call('DELETE', `/v1/admin/users/${r.body.user_id}`)).status).toBe(200);
    expect((await get('/v2/api-keys', r.body.api_keys[0].key)).status).toBe(401);
    expect((await get('/v2/api-keys', r.body.api_keys[1].key)).status).toBe(401);
  });

  it('creates no key without workspace_api_key_details, and bounds a reused user’s key by their role', async () => {
    const plain = await invite({ email: email('nokey'), role: 'admin', workspaces: [{ id: 'ws-default', role: 'member' }] });
    const r = await accept({ token: tokenOf(plain.body.invite_link) });
    expect(r.status).toBe(200);
    expect(r.body.api_keys).toEqual([]);
    expect((await get(`/v1/admin/users/${r.body.user_id}`)).body.role).toBe('admin');

    // The e-mail joined the organisation (as a member) after the invite was sent: the user is reused.
    const addr = email('reuse');
    const inv = await invite({ email: addr, role: 'admin', workspaces: [{ id: 'ws-default', role: 'member' }], workspace_api_key_details: { scopes: ['completions.write', 'configs.create'] } });
    const existing = crypto.randomUUID();
    await sql("insert into app_user (id, organisation_id, email, role) values (?, ?, ?, 'member')", [existing, stack.organisationId, addr]);
    const reused = await accept({ token: tokenOf(inv.body.invite_link), first_name: 'Ignored' });
    expect(reused.status).toBe(200);
    expect(reused.body.user_id).toBe(existing);
    expect(await count('app_user', 'lower(email) = ?', [addr])).toBe(1);
    const [key] = await sql('select scopes from api_key where id = ?', [reused.body.api_keys[0].id]);
    expect(key.scopes).toEqual(['completions.write']); // configs.create is beyond a workspace member
    const [ev] = await sql("select request_details from audit_event where action = 'invite.accept' and target_id = ?", [inv.body.id]);
    expect(ev.request_details.user_created).toBe(false);
  });

  it('gives the created keys the workspace key settings: default expiry and enforced rotation', async () => {
    const wsx = crypto.randomUUID();
    await sql("insert into workspace (id, organisation_id, slug, name, settings) values (?, ?, 'ws-strict', 'Strict', ?)", [
      wsx, stack.organisationId, JSON.stringify({ default_api_key_expiry_days: 10, user_api_key_rotation_period: 7 }),
    ]);
    const r = await invite({ email: email('strict'), role: 'member', workspaces: [{ id: 'ws-strict', role: 'member' }], workspace_api_key_details: { scopes: ['completions.write'] } });
    const a = await accept({ token: tokenOf(r.body.invite_link) });
    expect(a.status).toBe(200);
    const [k] = await sql('select expires_at, rotation_policy from api_key where id = ?', [a.body.api_keys[0].id]);
    const days = (ms: number) => Math.round(ms / 86_400_000);
    expect(days(new Date(k.expires_at).getTime() - Date.now())).toBe(10);
    expect(k.rotation_policy.rotation_period_days).toBe(7);
    expect(days(Date.parse(k.rotation_policy.next_rotation_at) - Date.now())).toBe(7);
  });

  it('answers 410 invite_expired past expires_at, writing nothing', async () => {
    const addr = email('late');
    const r = await invite({ email: addr, role: 'member', workspaces: [{ id: 'ws-default', role: 'member' }], workspace_api_key_details: { scopes: ['completions.write'] } });
    await sql("update invite set expires_at = now() - interval '1 second' where id = ?", [r.body.id]);
    const before = [await count('api_key'), await count('audit_event')];
    const a = await accept({ token: tokenOf(r.body.invite_link) });
    expect(a.status).toBe(410);
    expect(a.body.error).toMatchObject({ code: 'invite_expired', param: 'token' });
    expect(await count('app_user', 'email = ?', [addr])).toBe(0);
    expect([await count('api_key'), await count('audit_event')]).toEqual(before);
  });

  it('accepts a token once even when two acceptances race', async () => {
    const r = await invite({ email: email('race-accept'), role: 'member', workspaces: [{ id: 'ws-default', role: 'member' }], workspace_api_key_details: { scopes: ['completions.write'] } });
    const token = tokenOf(r.body.invite_link);
    const results = await Promise.all([accept({ token }), accept({ token }), accept({ token })]);
    expect(results.map((x) => x.status).sort()).toEqual([200, 404, 404]);
    const winner = results.find((x) => x.status === 200)!;
    expect(await count('api_key', 'user_id = ?', [winner.body.user_id])).toBe(1);
    expect(await count('audit_event', "action = 'invite.accept' and target_id = ?", [r.body.id])).toBe(1);
  });

  it('validates the body: 400 naming token, unknown tokens 404, the link’s query token accepted', async () => {
    const missing = await accept({ first_name: 'x' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.param).toBe('token');
    expect((await accept('{nope')).body.error.code).toBe('invalid_json');
    expect((await accept({ token: 'x', extra: 1 })).body.error.param).toBe('extra');
    const unknown = await accept({ token: 'A'.repeat(48) });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('invite_not_found');

    const r = await invite({ email: email('link'), role: 'member', workspaces: [] });
    const viaLink = await accept({}, `?token=${tokenOf(r.body.invite_link)}`);
    expect(viaLink.status).toBe(200);
    const [ev] = await sql("select uri from audit_event where action = 'invite.accept' and target_id = ?", [r.body.id]);
    expect(ev.uri).toBe('/v1/invites/accept'); // the token in the query never reaches the audit log
  });

  it('is a service the router can call with any entity manager (acceptInvite)', async () => {
    const r = await invite({ email: email('svc'), role: 'member', workspaces: [{ id: ws2, role: 'member' }] });
    const out = await acceptInvite(stack.db.orm.em.fork(), null, { token: tokenOf(r.body.invite_link) });
    expect(out).toMatchObject({ organisation_id: stack.organisationId, workspaces: [{ workspace_id: ws2, role: 'member' }], api_keys: [] });
    await expect(acceptInvite(stack.db.orm.em.fork(), null, { token: tokenOf(r.body.invite_link) })).rejects.toMatchObject({ status: 404, code: 'invite_not_found' });
  });
});

describe('GraphQL invites', () => {
  const ERR = '... on GatewayError { message code type param status }';
  const CREATE = `mutation($input: CreateInviteInput!) { createInvite(input: $input) { __typename ... on CreatedInvite { id invite_link } ${ERR} } }`;

  it('creates, reads, lists, resends and revokes, with typed errors', async () => {
    const addr = email('gql');
    const c = await gql(CREATE, { input: { email: addr, role: 'member', workspaces: [{ id: 'ws-default', role: 'member' }], workspace_api_key_details: { scopes: ['completions.write'] } } });
    expect(c.body.data.createInvite.__typename).toBe('CreatedInvite');
    const id = c.body.data.createInvite.id;
    expect(c.body.data.createInvite.invite_link).toMatch(/^\/v1\/invites\/accept\?token=[A-Za-z0-9]{48}$/);
    expect(await count('audit_event', "action = 'invite.create' and target_id = ?", [id])).toBe(1);

    const one = await gql('query($id: ID!) { invite(id: $id) { object id email role status invited_by workspaces { workspace_id role } } }', { id });
    expect(one.body.data.invite).toEqual({ object: 'invite', id, email: addr, role: 'member', status: 'pending', invited_by: adminKeyId, workspaces: [{ workspace_id: stack.workspaceId, role: 'member' }] });
    const list = await gql('query($e: String) { invites(currentPage: 0, pageSize: 5, email: $e, status: "pending") { object total data { id } } }', { e: addr });
    expect(list.body.data.invites).toEqual({ object: 'list', total: 1, data: [{ id }] });

    const dup = await gql(CREATE, { input: { email: addr, role: 'member', workspaces: [] } });
    expect(dup.body.data.createInvite).toMatchObject({ __typename: 'GatewayError', type: 'conflict_error', status: 409, param: 'email' });
    const bad = await gql(CREATE, { input: { email: email('gql'), role: 'member', workspaces: [{ id: 'ws-missing', role: 'member' }] } });
    expect(bad.body.data.createInvite).toMatchObject({ __typename: 'GatewayError', code: 'invalid_parameter', param: 'workspaces[0].id', status: 400 });
    const over = await gql(CREATE, { input: { email: email('gql'), role: 'member', workspaces: [{ id: 'ws-default', role: 'member' }], workspace_api_key_details: { scopes: ['configs.create'] } } });
    expect(over.body.data.createInvite).toMatchObject({ __typename: 'GatewayError', code: 'scope_exceeds_role', status: 403 });

    const resent = await gql(`mutation($id: ID!) { resendInvite(id: $id) { __typename ... on ResentInvite { inviteLink } ${ERR} } }`, { id });
    expect(resent.body.data.resendInvite.inviteLink).toMatch(/token=[A-Za-z0-9]{48}$/);
    expect(await count('audit_event', "action = 'invite.resend' and target_id = ?", [id])).toBe(1);

    const revoke = `mutation($id: ID!) { deleteInvite(id: $id) { __typename ... on RevokedInvite { id cancelled } ${ERR} } }`;
    const revoked = await gql(revoke, { id });
    expect(revoked.body.errors).toBeUndefined();
    expect(revoked.body.data.deleteInvite).toEqual({ __typename: 'RevokedInvite', id, cancelled: true });
    expect((await sql('select status from invite where id = ?', [id]))[0].status).toBe('cancelled');
    expect((await gql(revoke, { id })).body.data.deleteInvite).toMatchObject({ __typename: 'GatewayError', status: 409 });
    const resendCancelled = await gql(`mutation($id: ID!) { resendInvite(id: $id) { __typename ${ERR} } }`, { id });
    expect(resendCancelled.body.data.resendInvite).toMatchObject({ __typename: 'GatewayError', status: 409 });
    const a = await accept({ token: tokenOf(resent.body.data.resendInvite.inviteLink) });
    expect(a.body.error.code).toBe('invite_cancelled');
  });

  it('refuses callers without a key or without invite scopes', async () => {
    const anon = await gql('{ invites { total } }', {}, null);
    expect(anon.body.errors[0].extensions.code).toBe('invalid_api_key');
    const ws = await stack.createKey({ name: 'ws-gql', workspace_id: 'ws-default', scopes: ['completions.write'] });
    const denied = await gql('{ invites { total } }', {}, ws.key);
    expect(denied.body.errors[0].extensions).toMatchObject({ code: 'missing_scope', type: 'permission_error' });
    const create = await gql(CREATE, { input: { email: email('gql'), role: 'member', workspaces: [] } }, ws.key);
    expect(create.body.data.createInvite).toMatchObject({ __typename: 'GatewayError', status: 403 });
  });
});
