import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startStack, type Stack } from '../support/stack.ts';
import { graphqlCall } from '../support/api.ts';

let stack: Stack;
let base: string;
let adminKeyId: string;

const sql = <T = any>(q: string, params: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, params);
const count = async (q: string, params: unknown[] = []) => Number((await sql<{ n: string }>(q, params))[0]!.n);
const stored = async () => (await sql<{ settings: Record<string, unknown> }>('select settings from organisation where id = ?', [stack.organisationId]))[0]!.settings;

async function call(method: string, path: string, body?: unknown, key: string | null = stack.adminKey) {
  const headers: Record<string, string> = {};
  if (key) headers['x-gateway-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
}
const put = (body: unknown, key?: string) => call('PUT', '/v1/admin/organisation/settings', body, key);

const gql = graphqlCall(() => base, () => stack.adminKey);

const EMPTY = {
  user_api_key_rotation_period: null,
  max_user_api_keys_per_user: null,
  default_api_key_expiry_days: null,
  max_api_key_expiry_days: null,
  user_api_key_auto_create: null,
  user_api_key_auto_create_scopes: null,
  default_workspace_user_api_key_auto_create: null,
  block_inline_config: null,
};

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  base = stack.controlPlane.httpUrl;
  adminKeyId = (await sql<{ id: string }>("select id from api_key where creation_mode = 'bootstrap'"))[0]!.id;
});
afterAll(async () => stack?.close());

describe('GET and PUT /v1/admin/organisation/settings', () => {
  it('answers every setting, null while unset', async () => {
    const r = await call('GET', '/v1/admin/organisation/settings');
    expect(r.status).toBe(200);
    expect(r.body).toEqual(EMPTY);
  });

  it('stores weekly and monthly rotation periods as 7 and 30 days', async () => {
    const weekly = await put({ user_api_key_rotation_period: 'weekly', max_user_api_keys_per_user: 3 });
    expect(weekly.status).toBe(200);
    expect(weekly.body).toEqual({ ...EMPTY, user_api_key_rotation_period: 7, max_user_api_keys_per_user: 3 });
    expect(await stored()).toEqual({ user_api_key_rotation_period: 7, max_user_api_keys_per_user: 3 });
    expect((await put({ user_api_key_rotation_period: 'monthly' })).body.user_api_key_rotation_period).toBe(30);
    expect(await stored()).toEqual({ user_api_key_rotation_period: 30, max_user_api_keys_per_user: 3 });
    expect((await put({ user_api_key_rotation_period: 12 })).body.user_api_key_rotation_period).toBe(12);
    expect((await call('GET', '/v1/admin/organisation/settings')).body.user_api_key_rotation_period).toBe(12);
  });

  it('merges the given fields and clears those sent as null', async () => {
    await put({ default_api_key_expiry_days: 10, max_api_key_expiry_days: 20, user_api_key_auto_create_scopes: ['completions.write'], default_workspace_user_api_key_auto_create: false });
    const r = await put({ max_user_api_keys_per_user: null, user_api_key_rotation_period: null, user_api_key_auto_create: true });
    expect(r.body).toEqual({
      ...EMPTY,
      default_api_key_expiry_days: 10,
      max_api_key_expiry_days: 20,
      user_api_key_auto_create: true,
      user_api_key_auto_create_scopes: ['completions.write'],
      default_workspace_user_api_key_auto_create: false,
    });
    expect(await stored()).toEqual({
      default_api_key_expiry_days: 10,
      max_api_key_expiry_days: 20,
      user_api_key_auto_create: true,
      user_api_key_auto_create_scopes: ['completions.write'],
      default_workspace_user_api_key_auto_create: false,
    });
    expect((await put({})).body).toEqual(r.body);
  });

  it.each([
    [{ default_api_key_expiry_days: 100, max_api_key_expiry_days: 50 }, 'default_api_key_expiry_days'],
    // max 20 is stored: a default beyond it is refused although this request alone is consistent
    [{ default_api_key_expiry_days: 30 }, 'default_api_key_expiry_days'],
    [{ max_api_key_expiry_days: 5 }, 'max_api_key_expiry_days'],
    [{ user_api_key_rotation_period: 'daily' }, 'user_api_key_rotation_period'],
    [{ user_api_key_rotation_period: 0 }, 'user_api_key_rotation_period'],
    [{ max_user_api_keys_per_user: 1.5 }, 'max_user_api_keys_per_user'],
    [{ user_api_key_auto_create: 'yes' }, 'user_api_key_auto_create'],
    [{ user_api_key_auto_create_scopes: [''] }, 'user_api_key_auto_create_scopes[0]'],
    [{ unknown_setting: true }, 'unknown_setting'],
  ])('answers 400 naming the field for %j and changes nothing', async (body, param) => {
    const [before, events] = [await stored(), await count('select count(*) n from audit_event')];
    const r = await put(body);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_parameter', param });
    expect(await stored()).toEqual(before);
    expect(await count('select count(*) n from audit_event')).toBe(events);
  });

  it('rejects bodies that are not JSON objects', async () => {
    expect((await put('{nope')).body.error.code).toBe('invalid_json');
    expect((await put('"x"')).status).toBe(400);
  });

  it('records one audit event per update, with who, what and from where', async () => {
    const before = await count("select count(*) n from audit_event where action = 'organisation_settings.update'");
    await put({ max_user_api_keys_per_user: 4 });
    expect(await count("select count(*) n from audit_event where action = 'organisation_settings.update'")).toBe(before + 1);
    const [ev] = await sql("select * from audit_event where action = 'organisation_settings.update' order by created_at desc limit 1");
    expect(ev).toMatchObject({
      target_type: 'organisation', target_id: stack.organisationId, organisation_id: stack.organisationId, actor_type: 'api_key',
      actor_id: adminKeyId, method: 'PUT', uri: '/v1/admin/organisation/settings', workspace_id: null,
    });
    expect(ev.ip).toMatch(/127\.0\.0\.1/);
    expect(ev.request_details).toMatchObject({ input: { max_user_api_keys_per_user: 4 }, settings: { max_user_api_keys_per_user: 4 } });
  });
});

describe('authorization', () => {
  it('answers 401 without a key', async () => {
    expect((await call('GET', '/v1/admin/organisation/settings', undefined, null)).status).toBe(401);
    expect((await put({ max_user_api_keys_per_user: 2 }, 'C'.repeat(48))).status).toBe(401);
  });

  it('answers 403 to workspace keys and to organisation keys without the scope', async () => {
    const ws = await stack.createKey({ name: 'ws', workspace_id: 'ws-default', scopes: ['completions.write'] });
    const reader = await stack.createKey({ name: 'reader', scopes: ['organisation_settings.read'] });
    const before = [await stored(), await count('select count(*) n from audit_event')];
    for (const key of [ws.key, reader.key]) {
      const r = await put({ max_user_api_keys_per_user: 9 }, key);
      expect(r.status).toBe(403);
      expect(r.body.error).toMatchObject({ type: 'permission_error', code: 'missing_scope' });
    }
    expect((await call('GET', '/v1/admin/organisation/settings', undefined, ws.key)).status).toBe(403);
    expect((await call('GET', '/v1/admin/organisation/settings', undefined, reader.key)).status).toBe(200);
    expect([await stored(), await count('select count(*) n from audit_event')]).toEqual(before);
  });
});

describe('GraphQL', () => {
  const FIELDS = 'user_api_key_rotation_period max_user_api_keys_per_user default_workspace_user_api_key_auto_create';

  it('reads and updates the settings, with typed errors', async () => {
    const upd = await gql(`mutation($input: JSON!) { updateOrganisationSettings(input: $input) { __typename ... on OrganisationSettings { ${FIELDS} } } }`, {
      input: { user_api_key_rotation_period: 'weekly', default_workspace_user_api_key_auto_create: true },
    });
    expect(upd.body.data.updateOrganisationSettings).toMatchObject({ __typename: 'OrganisationSettings', user_api_key_rotation_period: 7, default_workspace_user_api_key_auto_create: true });
    const read = await gql(`{ organisationSettings { ${FIELDS} } }`);
    expect(read.body.data.organisationSettings).toMatchObject({ user_api_key_rotation_period: 7, default_workspace_user_api_key_auto_create: true });

    const bad = await gql('mutation { updateOrganisationSettings(input: { max_api_key_expiry_days: 99999 }) { __typename ... on GatewayError { code param status } } }');
    expect(bad.body.data.updateOrganisationSettings).toEqual({ __typename: 'GatewayError', code: 'invalid_parameter', param: 'max_api_key_expiry_days', status: 400 });
    const ws = await stack.createKey({ name: 'ws2', workspace_id: 'ws-default', scopes: ['completions.write'] });
    const denied = await gql('mutation { updateOrganisationSettings(input: {}) { __typename ... on GatewayError { code status } } }', {}, ws.key);
    expect(denied.body.data.updateOrganisationSettings).toEqual({ __typename: 'GatewayError', code: 'missing_scope', status: 403 });
    const deniedRead = await gql('{ organisationSettings { max_user_api_keys_per_user } }', {}, ws.key);
    expect(deniedRead.body.errors[0].extensions).toMatchObject({ code: 'missing_scope' });
  });
});
