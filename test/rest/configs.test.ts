import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startStack, type Stack } from '../support/stack.ts';
import { graphqlCall } from '../support/api.ts';

let stack: Stack;
let base: string;
let adminKeyId: string;
/** Workspace key of ws-default with every configs scope. */
let wsKey: string;
/** Workspace key of ws-default that may only read. */
let readOnlyKey: string;
let otherWs: { id: string; slug: string };

const sql = <T = any>(q: string, params: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, params);
const count = async (q: string, params: unknown[] = []) => Number((await sql<{ n: string }>(q, params))[0]!.n);

async function call(method: string, path: string, body?: unknown, key: string | null = stack.adminKey) {
  const headers: Record<string, string> = { 'user-agent': 'cfg-test' };
  if (key) headers['x-gateway-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as any };
}

const gql = graphqlCall(() => base, () => stack.adminKey);

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CONFIG_V1 = { retry: { attempts: 3 }, strategy: { mode: 'fallback' }, targets: [{ provider: 'openai' }, { provider: 'anthropic' }] };
const CONFIG_V2 = { retry: { attempts: 2 }, cache: { mode: 'simple', max_age: 60 } };
const ERR = '... on GatewayError { message code type param status }';

let seq = 0;
async function makeConfig(extra: Record<string, unknown> = {}, key = stack.adminKey) {
  const r = await call('POST', '/v1/configs', { name: `Cfg ${++seq}`, config: CONFIG_V1, workspace_id: stack.workspaceId, ...extra }, key);
  expect(r.status).toBe(200);
  const row = (await sql<{ slug: string }>('select slug from config where id = ?', [r.body.data.id]))[0]!;
  return { id: r.body.data.id as string, version_id: r.body.data.version_id as string, slug: row.slug };
}

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  base = stack.controlPlane.httpUrl;
  adminKeyId = (await sql<{ id: string }>("select id from api_key where creation_mode = 'bootstrap'"))[0]!.id;
  wsKey = (await stack.createKey({ name: 'cfg ws', workspace_id: 'ws-default', scopes: ['configs.create', 'configs.read', 'configs.update', 'configs.delete', 'configs.list'] })).key;
  readOnlyKey = (await stack.createKey({ name: 'cfg ro', workspace_id: 'ws-default', scopes: ['configs.read', 'configs.list'] })).key;
  const ws = await call('POST', '/v1/admin/workspaces', { name: 'Cfg Other' });
  expect(ws.status).toBe(200);
  otherWs = ws.body;
});
afterAll(async () => stack?.close());

describe('configs over REST', () => {
  it('creates, lists, gets by id and slug, updates into versions 1 and 2, lists versions and deletes', async () => {
    const created = await call('POST', '/v1/configs', { name: 'My Router', config: CONFIG_V1, isDefault: 0, workspace_id: stack.workspaceId });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ success: true, data: { id: expect.stringMatching(UUID_RE), version_id: expect.stringMatching(UUID_RE) } });
    const { id, version_id: v1 } = created.body.data;
    const [row] = await sql('select * from config where id = ?', [id]);
    expect(row.slug).toMatch(/^pc-my-router-[0-9a-f]{6}$/);
    expect(row.owner_id).toBe(adminKeyId);
    const slug = row.slug as string;

    const item = {
      id,
      name: 'My Router',
      slug,
      organisation_id: stack.organisationId,
      workspace_id: stack.workspaceId,
      is_default: 0,
      status: 'active',
      owner_id: adminKeyId,
      updated_by: adminKeyId,
      created_at: ISO,
      last_updated_at: ISO,
      version_id: v1,
      object: 'config',
    };
    const list = await call('GET', `/v1/configs?workspace_id=${stack.workspaceId}`);
    expect(list.status).toBe(200);
    expect(list.body.success).toBe(true);
    expect(list.body.data).toContainEqual(item);
    expect((await call('GET', `/v1/configs?workspace_id=${otherWs.id}`)).body).toEqual({ success: true, data: [] });

    for (const ref of [id, slug]) {
      const got = await call('GET', `/v2/configs/${ref}`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual({ success: true, data: { ...item, config: CONFIG_V1 } });
    }

    const upd = await call('PUT', `/v1/configs/${slug}`, { name: 'Renamed', config: CONFIG_V2 });
    expect(upd.status).toBe(200);
    expect(upd.body).toEqual({ success: true, data: { version_id: expect.stringMatching(UUID_RE) } });
    const v2 = upd.body.data.version_id;
    expect(v2).not.toBe(v1);
    expect((await call('GET', `/v1/configs/${id}`)).body.data).toMatchObject({ name: 'Renamed', config: CONFIG_V2, version_id: v2 });

    // A status-only update makes no version.
    expect((await call('PUT', `/v1/configs/${id}`, { status: 'inactive' })).body).toEqual({ success: true, data: { version_id: v2 } });

    const versions = await call('GET', `/v1/configs/${id}/versions`);
    expect(versions.status).toBe(200);
    expect(versions.body.object).toBe('list');
    expect(versions.body.total).toBe(2);
    expect(versions.body.data.map((v: any) => [v.version, v.version_id, typeof v.config, JSON.parse(v.config), v.format, v.object])).toEqual([
      [2, v2, 'string', CONFIG_V2, 'json', 'config'],
      [1, v1, 'string', CONFIG_V1, 'json', 'config'],
    ]);
    expect(await sql('select version from config_version where config_id = ? order by version', [id])).toEqual([{ version: 1 }, { version: 2 }]);

    const del = await call('DELETE', `/v1/configs/${slug}`);
    expect(del).toEqual({ status: 200, body: {} });
    expect((await sql('select deleted_at from config where id = ?', [id]))[0].deleted_at).not.toBeNull();
    expect((await call('GET', `/v1/configs/${id}`)).status).toBe(404);
    expect((await call('GET', '/v1/configs')).body.data.map((c: any) => c.id)).not.toContain(id);

    // One audit event per mutation, in order.
    const audit = await sql('select action, target_type, actor_id, method, uri, request_details from audit_event where target_id = ? order by created_at', [id]);
    expect(audit.map((a: any) => [a.action, a.target_type, a.actor_id, a.method])).toEqual([
      ['config.create', 'config', adminKeyId, 'POST'],
      ['config.update', 'config', adminKeyId, 'PUT'],
      ['config.update', 'config', adminKeyId, 'PUT'],
      ['config.delete', 'config', adminKeyId, 'DELETE'],
    ]);
    expect(audit[0].uri).toBe('/v1/configs');
    expect(audit[1].request_details).toMatchObject({ name: 'Renamed', config: CONFIG_V2, version_id: v2 });

    // resource_change: upserts of both keys per write, deletes on the soft delete.
    const changes = await sql<{ resource_key: string; action: string }>('select resource_key, action from resource_change where resource_type = ? and resource_id = ? order by version', ['config', id]);
    const wsKeyName = `${stack.workspaceId}:${slug}`;
    expect(changes.filter((c) => c.action === 'upsert').length).toBeGreaterThanOrEqual(6);
    expect(changes.slice(-2)).toEqual([
      { resource_key: id, action: 'delete' },
      { resource_key: wsKeyName, action: 'delete' },
    ].sort((a, b) => a.resource_key.localeCompare(b.resource_key)));
    expect(changes.slice(0, 2).map((c) => c.action)).toEqual(['upsert', 'upsert']);
    expect(new Set(changes.map((c) => c.resource_key))).toEqual(new Set([id, wsKeyName]));
  });

  it('keeps one default per workspace', async () => {
    const a = await makeConfig({ isDefault: 1 });
    const b = await makeConfig({ isDefault: 1 });
    const defaults = await sql('select id from config where workspace_id = ? and is_default = 1 and deleted_at is null', [stack.workspaceId]);
    expect(defaults).toEqual([{ id: b.id }]);
    expect((await call('GET', `/v1/configs/${a.id}`)).body.data.is_default).toBe(0);
  });

  it('workspace keys act in their own workspace only', async () => {
    const mine = await call('POST', '/v1/configs', { name: 'Mine', config: CONFIG_V1 }, wsKey);
    expect(mine.status).toBe(200);
    expect((await sql('select workspace_id from config where id = ?', [mine.body.data.id]))[0].workspace_id).toBe(stack.workspaceId);

    const other = await makeConfig({ workspace_id: otherWs.id });
    const before = await count('select count(*) n from config');
    const denied = await call('POST', '/v1/configs', { name: 'X', config: CONFIG_V1, workspace_id: otherWs.slug }, wsKey);
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('other_workspace');
    expect(await count('select count(*) n from config')).toBe(before);
    expect((await call('GET', `/v1/configs/${other.id}`, undefined, wsKey)).status).toBe(404);
    expect((await call('GET', `/v1/configs/${other.slug}/versions`, undefined, wsKey)).status).toBe(404);
    expect((await call('GET', `/v1/configs?workspace_id=${otherWs.id}`, undefined, wsKey)).status).toBe(404);
    expect((await call('GET', '/v1/configs', undefined, wsKey)).body.data.every((c: any) => c.workspace_id === stack.workspaceId)).toBe(true);
    const upd = await call('PUT', `/v1/configs/${other.id}`, { name: 'Nope' }, wsKey);
    expect(upd.status).toBe(403);
    expect((await call('DELETE', `/v1/configs/${other.id}`, undefined, wsKey)).status).toBe(403);
    expect((await sql('select name, deleted_at from config where id = ?', [other.id]))[0]).toMatchObject({ deleted_at: null });

    // A missing scope.
    const ro = await call('POST', '/v1/configs', { name: 'RO', config: CONFIG_V1 }, readOnlyKey);
    expect(ro.status).toBe(403);
    expect(ro.body.error.code).toBe('missing_scope');
    expect((await call('DELETE', `/v1/configs/${mine.body.data.id}`, undefined, readOnlyKey)).status).toBe(403);
    expect((await call('GET', `/v1/configs/${mine.body.data.id}`, undefined, readOnlyKey)).status).toBe(200);
  });

  it('answers 400 naming the field, writing nothing', async () => {
    const before = [await count('select count(*) n from config'), await count('select count(*) n from config_version'), await count('select count(*) n from audit_event')];
    const bad = await call('POST', '/v1/configs', { name: 'Bad', config: { retry: { attempts: 6 } }, workspace_id: stack.workspaceId });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ type: 'invalid_request_error', param: 'config.retry.attempts' });
    const guard = await call('POST', '/v1/configs', { name: 'G', config: { input_guardrails: ['pg-nope-1'] }, workspace_id: stack.workspaceId });
    expect(guard.status).toBe(400);
    expect(guard.body.error).toMatchObject({ param: 'config', message: 'Unknown guardrail: pg-nope-1' });
    const noWs = await call('POST', '/v1/configs', { name: 'N', config: CONFIG_V1 });
    expect(noWs.status).toBe(400);
    expect(noWs.body.error.param).toBe('workspace_id');
    const flag = await call('POST', '/v1/configs', { name: 'F', config: CONFIG_V1, isDefault: 2, workspace_id: stack.workspaceId });
    expect(flag.status).toBe(400);
    expect(flag.body.error.param).toBe('isDefault');
    expect([await count('select count(*) n from config'), await count('select count(*) n from config_version'), await count('select count(*) n from audit_event')]).toEqual(before);

    const cfg = await makeConfig();
    const upd = await call('PUT', `/v1/configs/${cfg.id}`, { config: { targets: [{ provider: 'openai', retry: { attempts: 6 } }] } });
    expect(upd.status).toBe(400);
    expect(upd.body.error.param).toBe('config.targets[0].retry.attempts');
    expect(await count('select count(*) n from config_version where config_id = ?', [cfg.id])).toBe(1);
  });

  it('accepts guardrail refs the workspace can use (its own and organisation guardrails, by id or slug) and refuses the rest', async () => {
    const guard = async (body: Record<string, unknown>) => {
      const r = await call('POST', '/v1/guardrails', { checks: [{ id: 'default.regexMatch', parameters: { rule: 'x' } }], actions: {}, ...body });
      expect(r.status).toBe(200);
      return r.body as { id: string; slug: string };
    };
    const own = await guard({ name: 'Own', workspace_id: stack.workspaceId });
    const org = await guard({ name: 'Org' });
    const foreign = await guard({ name: 'Foreign', workspace_id: otherWs.id });
    const gone = await guard({ name: 'Gone', workspace_id: stack.workspaceId });
    expect((await call('DELETE', `/v1/guardrails/${gone.id}`)).status).toBe(200);

    const ok = await call('POST', '/v1/configs', {
      name: 'Guarded',
      config: { input_guardrails: [own.slug, org.id], targets: [{ provider: 'openai', output_guardrails: [own.id, org.slug, { 'default.wordCount': { maxWords: 5 } }] }], strategy: { mode: 'fallback' } },
      workspace_id: stack.workspaceId,
    });
    expect(ok.status).toBe(200);
    const byWsKey = await call('POST', '/v1/configs', { name: 'Guarded ws', config: { output_guardrails: [org.slug] } }, wsKey);
    expect(byWsKey.status).toBe(200);

    const before = await count('select count(*) n from config');
    for (const ref of [foreign.slug, foreign.id, gone.slug, 'guard_nope']) {
      const r = await call('POST', '/v1/configs', { name: 'Bad ref', config: { targets: [{ provider: 'openai', input_guardrails: [own.slug, ref] }], strategy: { mode: 'fallback' } }, workspace_id: stack.workspaceId });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ param: 'config', message: `Unknown guardrail: ${ref}` });
    }
    expect(await count('select count(*) n from config')).toBe(before);
    // The same guardrail is fine in its own workspace.
    expect((await call('POST', '/v1/configs', { name: 'There', config: { input_guardrails: [foreign.slug] }, workspace_id: otherWs.id })).status).toBe(200);

    // Update checks against the config's workspace.
    const upd = await call('PUT', `/v1/configs/${ok.body.data.id}`, { config: { input_guardrails: [foreign.slug] } });
    expect(upd.status).toBe(400);
    expect(upd.body.error.message).toBe(`Unknown guardrail: ${foreign.slug}`);
    expect(await count('select count(*) n from config_version where config_id = ?', [ok.body.data.id])).toBe(1);
    expect((await call('PUT', `/v1/configs/${ok.body.data.id}`, { config: { input_guardrails: [org.slug] } })).status).toBe(200);
  });

  it('answers 404 for unknown configs and 409 deleting a workspace default user_api_key_config', async () => {
    expect((await call('GET', '/v1/configs/pc-missing-000000')).status).toBe(404);
    expect((await call('PUT', '/v1/configs/00000000-0000-4000-8000-000000000000', { name: 'x' })).status).toBe(404);
    expect((await call('DELETE', '/v1/configs/pc-missing-000000')).status).toBe(404);

    for (const by of ['id', 'slug'] as const) {
      const cfg = await makeConfig({ workspace_id: otherWs.id });
      await sql(`update workspace set defaults = jsonb_set(defaults, '{user_api_key_config}', to_jsonb(?::text)) where id = ?`, [cfg[by], otherWs.id]);
      const del = await call('DELETE', `/v1/configs/${cfg.slug}`);
      expect(del.status).toBe(409);
      expect(del.body.error).toMatchObject({ code: 'config_in_use', type: 'conflict_error' });
      expect((await sql('select deleted_at from config where id = ?', [cfg.id]))[0].deleted_at).toBeNull();
      expect(await count("select count(*) n from audit_event where target_id = ? and action = 'config.delete'", [cfg.id])).toBe(0);
    }
    await sql(`update workspace set defaults = defaults - 'user_api_key_config' where id = ?`, [otherWs.id]);
  });
});

describe('configs over GraphQL', () => {
  it('runs the same lifecycle and errors', async () => {
    const created = await gql(
      `mutation($input: CreateConfigInput!) { createConfig(input: $input) { __typename ... on CreatedConfig { id slug version_id } ${ERR} } }`,
      { input: { name: 'GQL cfg', config: CONFIG_V1, workspace_id: 'ws-default' } },
    );
    const c = created.body.data.createConfig;
    expect(c).toMatchObject({ __typename: 'CreatedConfig', id: expect.stringMatching(UUID_RE), slug: expect.stringMatching(/^pc-gql-cfg-[0-9a-f]{6}$/) });

    const got = await gql('query($id: ID!) { config(id: $id) { id slug name config version_id } }', { id: c.slug });
    expect(got.body.data.config).toEqual({ id: c.id, slug: c.slug, name: 'GQL cfg', config: CONFIG_V1, version_id: c.version_id });

    const upd = await gql(`mutation($id: ID!, $input: UpdateConfigInput!) { updateConfig(id: $id, input: $input) { __typename ... on UpdatedConfig { version_id } ${ERR} } }`, {
      id: c.id,
      input: { config: CONFIG_V2 },
    });
    expect(upd.body.data.updateConfig.__typename).toBe('UpdatedConfig');

    const versions = await gql('query($id: ID!) { configVersions(id: $id) { total data { version config } } }', { id: c.id });
    const vs = versions.body.data.configVersions;
    expect(vs.total).toBe(2);
    expect(vs.data.map((v: any) => [v.version, JSON.parse(v.config)])).toEqual([
      [2, CONFIG_V2],
      [1, CONFIG_V1],
    ]);

    const list = await gql('query { configs(workspace_id: "ws-default") { id } }', {}, wsKey);
    expect(list.body.data.configs.map((x: any) => x.id)).toContain(c.id);

    const bad = await gql(`mutation($input: CreateConfigInput!) { createConfig(input: $input) { __typename ${ERR} } }`, {
      input: { name: 'bad', config: { retry: { attempts: 6 } }, workspace_id: 'ws-default' },
    });
    expect(bad.body.data.createConfig).toMatchObject({ __typename: 'GatewayError', status: 400, param: 'config.retry.attempts' });
    const guard = await gql(`mutation($input: CreateConfigInput!) { createConfig(input: $input) { __typename ${ERR} } }`, {
      input: { config: { output_guardrails: ['pg-x'] }, workspace_id: 'ws-default' },
    });
    expect(guard.body.data.createConfig).toMatchObject({ status: 400, param: 'config', message: 'Unknown guardrail: pg-x' });
    const saved = await call('POST', '/v1/guardrails', { name: 'GQL ref', checks: [{ id: 'default.notNull' }], actions: {}, workspace_id: stack.workspaceId });
    const known = await gql(`mutation($input: CreateConfigInput!) { createConfig(input: $input) { __typename ${ERR} } }`, {
      input: { config: { output_guardrails: [saved.body.slug] }, workspace_id: 'ws-default' },
    });
    expect(known.body.data.createConfig.__typename).toBe('CreatedConfig');

    const other = await makeConfig({ workspace_id: otherWs.id });
    const denied = await gql(`mutation($id: ID!) { deleteConfig(id: $id) { __typename ${ERR} } }`, { id: other.id }, wsKey);
    expect(denied.body.data.deleteConfig).toMatchObject({ __typename: 'GatewayError', status: 403 });
    const hidden = await gql('query($id: ID!) { config(id: $id) { id } }', { id: other.id }, wsKey);
    expect(hidden.body.errors[0].extensions).toMatchObject({ code: 'not_found' });

    await sql(`update workspace set defaults = jsonb_set(defaults, '{user_api_key_config}', to_jsonb(?::text)) where id = ?`, [c.slug, stack.workspaceId]);
    const inUse = await gql(`mutation($id: ID!) { deleteConfig(id: $id) { __typename ${ERR} } }`, { id: c.id });
    expect(inUse.body.data.deleteConfig).toMatchObject({ status: 409, code: 'config_in_use' });
    await sql(`update workspace set defaults = defaults - 'user_api_key_config' where id = ?`, [stack.workspaceId]);

    const del = await gql(`mutation($id: ID!) { deleteConfig(id: $id) { __typename ... on DeletedConfig { id slug } ${ERR} } }`, { id: c.id });
    expect(del.body.data.deleteConfig).toEqual({ __typename: 'DeletedConfig', id: c.id, slug: c.slug });
    const audit = await sql('select action from audit_event where target_id = ? order by created_at', [c.id]);
    expect(audit.map((a: any) => a.action)).toEqual(['config.create', 'config.update', 'config.delete']);
    const last = await sql('select action from resource_change where resource_type = ? and resource_id = ? order by version desc limit 2', ['config', c.id]);
    expect(last).toEqual([{ action: 'delete' }, { action: 'delete' }]);
  });
});
