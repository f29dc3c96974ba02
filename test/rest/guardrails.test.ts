import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import pg from 'pg';
import { startStack, type Stack } from '../support/stack.ts';
import { guardrailPolicyWorkerResolver, guardrailWorkerResolver } from '../../src/services/guardrails/worker-resolver.ts';
import { graphqlCall } from '../support/api.ts';

let stack: Stack;
let base: string;
let adminKeyId: string;
/** Workspace key of ws-default with every guardrails scope. */
let wsKey: string;
/** Workspace key of ws-default that may only read. */
let readOnlyKey: string;
/** Organisation key with workspace guardrail scopes but no organisation_guardrails ones. */
let orgWsOnlyKey: string;
let otherWs: { id: string; slug: string };

const sql = <T = any>(q: string, params: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, params);
const count = async (q: string, params: unknown[] = []) => Number((await sql<{ n: string }>(q, params))[0]!.n);

async function call(method: string, path: string, body?: unknown, key: string | null = stack.adminKey) {
  const headers: Record<string, string> = { 'user-agent': 'guard-test' };
  if (key) headers['x-gateway-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as any };
}

const gql = graphqlCall(() => base, () => stack.adminKey);

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ERR = '... on GatewayError { message code type param status }';
const DEFAULT_ACTIONS = {
  deny: false,
  async: false,
  on_success: { feedback: { value: 5, weight: 1, metadata: '' } },
  on_fail: { feedback: { value: -5, weight: 1, metadata: '' } },
};
const REGEX = { id: 'default.regexMatch', parameters: { rule: 'secret', not: true }, name: 'No secrets' };
const HOOK = {
  id: 'default.webhook',
  parameters: { webhookURL: 'https://hooks.example/check', headers: { Authorization: 'Bearer hook-secret-value-123' }, forwardHeaders: ['x-request-id', 'X-Tenant'], timeout: 2000 },
};

let seq = 0;
async function makeGuardrail(extra: Record<string, unknown> = {}, key = stack.adminKey) {
  const r = await call('POST', '/v1/guardrails', { name: `Guard ${++seq}`, checks: [REGEX], actions: { deny: true }, workspace_id: stack.workspaceId, ...extra }, key);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { id: string; slug: string; version_id: string };
}

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  base = stack.controlPlane.httpUrl;
  adminKeyId = (await sql<{ id: string }>("select id from api_key where creation_mode = 'bootstrap'"))[0]!.id;
  const all = ['create', 'read', 'update', 'delete', 'list'].map((a) => `guardrails.${a}`);
  wsKey = (await stack.createKey({ name: 'g ws', workspace_id: 'ws-default', scopes: all })).key;
  readOnlyKey = (await stack.createKey({ name: 'g ro', workspace_id: 'ws-default', scopes: ['guardrails.read', 'guardrails.list'] })).key;
  const org = await call('POST', '/v1/api-keys/organisation/service', { name: 'g org ws-only', scopes: all });
  expect(org.status).toBe(200);
  orgWsOnlyKey = org.body.key;
  const ws = await call('POST', '/v1/admin/workspaces', { name: 'Guard Other' });
  expect(ws.status).toBe(200);
  otherWs = ws.body;
});
afterAll(async () => stack?.close());

describe('guardrails over REST', () => {
  it('creates (with created_at and created_by), lists, gets by id and slug, updates into a new version and deletes', async () => {
    const created = await call('POST', '/v1/guardrails', { name: 'PII Guard', checks: [REGEX, HOOK], actions: { deny: true }, workspace_id: stack.workspaceId });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ id: expect.stringMatching(UUID_RE), slug: expect.stringMatching(/^guard_pii-guard-[0-9a-f]{6}$/), version_id: expect.stringMatching(UUID_RE), created_at: ISO, created_by: adminKeyId });
    const { id, slug, version_id: v1 } = created.body;

    const item = {
      id,
      name: 'PII Guard',
      slug,
      organisation_id: stack.organisationId,
      workspace_id: stack.workspaceId,
      status: 'active',
      created_at: created.body.created_at,
      last_updated_at: ISO,
      owner_id: adminKeyId,
      updated_by: adminKeyId,
      version_id: v1,
      object: 'guardrail',
    };
    const list = await call('GET', `/v1/guardrails?workspace_id=${stack.workspaceId}`);
    expect(list.status).toBe(200);
    expect(Object.keys(list.body).sort()).toEqual(['data', 'total']);
    expect(list.body.data).toContainEqual(item);

    const maskedHook = { ...HOOK, parameters: { ...HOOK.parameters, headers: { Authorization: 'Be********23' } }, is_enabled: true };
    const detail = { ...item, checks: [{ ...REGEX, is_enabled: true }, maskedHook], actions: { ...DEFAULT_ACTIONS, deny: true } };
    for (const ref of [id, slug]) {
      const got = await call('GET', `/v1/guardrails/${ref}`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(detail);
    }
    expect((await call('GET', `/v2/guardrails/${slug}`)).body).toEqual(detail);
    // Stored unmasked (workers call the webhook with it), shown masked, never in the audit log.
    const [row] = await sql('select checks from guardrail where id = ?', [id]);
    expect(row.checks[1].parameters.headers.Authorization).toBe('Bearer hook-secret-value-123');
    const auditText = JSON.stringify(await sql('select request_details from audit_event where target_id = ?', [id]));
    expect(auditText).not.toContain('hook-secret-value-123');

    // Sending the masked value back keeps the stored secret; the update is a new version.
    const upd = await call('PUT', `/v1/guardrails/${slug}`, { name: 'PII Guard 2', checks: [detail.checks[1], { id: 'wordCount', parameters: { maxWords: 100 } }] });
    expect(upd.status).toBe(200);
    expect(upd.body).toEqual({ id, slug, version_id: expect.stringMatching(UUID_RE) });
    expect(upd.body.version_id).not.toBe(v1);
    const [after] = await sql('select name, checks, actions, current_version_id from guardrail where id = ?', [id]);
    expect(after.name).toBe('PII Guard 2');
    expect(after.checks.map((c: any) => c.id)).toEqual(['default.webhook', 'default.wordCount']);
    expect(after.checks[0].parameters.headers.Authorization).toBe('Bearer hook-secret-value-123');
    expect(after.actions.deny).toBe(true);
    const versions = await sql('select version, name from guardrail_version where guardrail_id = ? order by version', [id]);
    expect(versions).toEqual([{ version: 1, name: 'PII Guard' }, { version: 2, name: 'PII Guard 2' }]);
    // A new header value replaces it.
    const hook2 = { ...HOOK, parameters: { ...HOOK.parameters, headers: { Authorization: 'Bearer rotated' } } };
    expect((await call('PUT', `/v2/guardrails/${id}`, { checks: [hook2], actions: { async: true } })).status).toBe(200);
    const [rotated] = await sql('select checks, actions from guardrail where id = ?', [id]);
    expect(rotated.checks[0].parameters.headers.Authorization).toBe('Bearer rotated');
    expect(rotated.actions).toEqual({ ...DEFAULT_ACTIONS, async: true });

    const del = await call('DELETE', `/v1/guardrails/${id}`);
    expect(del).toEqual({ status: 200, body: {} });
    expect((await call('GET', `/v1/guardrails/${id}`)).status).toBe(404);
    expect((await call('GET', `/v1/guardrails?workspace_id=${stack.workspaceId}`)).body.data.some((g: any) => g.id === id)).toBe(false);
    const audit = await sql('select action, workspace_id from audit_event where target_id = ? order by created_at', [id]);
    expect(audit).toEqual([
      { action: 'guardrail.create', workspace_id: stack.workspaceId },
      { action: 'guardrail.update', workspace_id: stack.workspaceId },
      { action: 'guardrail.update', workspace_id: stack.workspaceId },
      { action: 'guardrail.delete', workspace_id: stack.workspaceId },
    ]);
  });

  it('pages the list (page_size 1–1000, current_page ≥ 0)', async () => {
    const ws = (await call('POST', '/v1/admin/workspaces', { name: 'Guard Paging' })).body;
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await makeGuardrail({ workspace_id: ws.id }));
    const p0 = await call('GET', `/v1/guardrails?workspace_id=${ws.slug}&page_size=2`);
    expect(p0.body.total).toBe(3);
    expect(p0.body.data.map((g: any) => g.id)).toEqual([made[0]!.id, made[1]!.id]);
    const p1 = await call('GET', `/v1/guardrails?workspace_id=${ws.slug}&page_size=2&current_page=1`);
    expect(p1.body.data.map((g: any) => g.id)).toEqual([made[2]!.id]);
    expect((await call('GET', '/v1/guardrails?page_size=0')).body.error.param).toBe('page_size');
    expect((await call('GET', '/v1/guardrails?page_size=1001')).status).toBe(400);
    expect((await call('GET', '/v1/guardrails?current_page=-1')).body.error.param).toBe('current_page');
  });

  it('organisation guardrails: organisation keys with organisation_guardrails scopes only', async () => {
    const org = await call('POST', '/v1/guardrails', { name: 'Org Guard', organisation_id: stack.organisationId, checks: [REGEX], actions: {} });
    expect(org.status).toBe(200);
    const [row] = await sql('select workspace_id from guardrail where id = ?', [org.body.id]);
    expect(row.workspace_id).toBeNull();
    const noIds = await call('POST', '/v1/guardrails', { name: 'Org Guard 2', checks: [REGEX], actions: {} });
    expect((await sql('select workspace_id from guardrail where id = ?', [noIds.body.id]))[0].workspace_id).toBeNull();

    // The organisation list is the organisation's own guardrails; the workspace list is the workspace's.
    const orgList = await call('GET', `/v1/guardrails?organisation_id=${stack.organisationId}`);
    expect(orgList.body.data.map((g: any) => g.id)).toEqual(expect.arrayContaining([org.body.id, noIds.body.id]));
    expect(orgList.body.data.every((g: any) => g.workspace_id === null)).toBe(true);
    expect((await call('GET', '/v1/guardrails')).body.total).toBe(orgList.body.total);
    expect((await call('GET', `/v1/guardrails?workspace_id=${stack.workspaceId}`)).body.data.every((g: any) => g.workspace_id === stack.workspaceId)).toBe(true);
    expect((await call('GET', '/v1/guardrails?organisation_id=00000000-0000-4000-8000-000000000000')).status).toBe(404);

    // An organisation key without organisation_guardrails.* works on workspace guardrails only.
    const denied = await call('POST', '/v1/guardrails', { name: 'X', checks: [REGEX], actions: {} }, orgWsOnlyKey);
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({ code: 'missing_scope', message: expect.stringContaining('organisation_guardrails.create') });
    expect((await call('GET', `/v1/guardrails/${org.body.id}`, undefined, orgWsOnlyKey)).status).toBe(403);
    expect((await call('PUT', `/v1/guardrails/${org.body.id}`, { name: 'Y' }, orgWsOnlyKey)).status).toBe(403);
    expect((await call('DELETE', `/v1/guardrails/${org.body.id}`, undefined, orgWsOnlyKey)).status).toBe(403);
    expect((await call('GET', '/v1/guardrails', undefined, orgWsOnlyKey)).status).toBe(403);
    const wsGuard = await makeGuardrail({ workspace_id: otherWs.slug }, orgWsOnlyKey);
    expect((await call('GET', `/v1/guardrails/${wsGuard.slug}`, undefined, orgWsOnlyKey)).status).toBe(200);

    // Workspace keys never see organisation guardrails (but configs in their workspace may name them).
    expect((await call('GET', `/v1/guardrails/${org.body.id}`, undefined, wsKey)).status).toBe(404);
    expect((await call('PUT', `/v1/guardrails/${org.body.slug}`, { name: 'Z' }, wsKey)).status).toBe(403);
    expect((await sql('select name from guardrail where id = ?', [org.body.id]))[0].name).toBe('Org Guard');
    const cfg = await call('POST', '/v1/configs', { name: 'uses org guard', config: { input_guardrails: [org.body.slug] } });
    expect(cfg.status).toBe(400); // an organisation key must name the workspace
    const cfgOk = await call('POST', '/v1/configs', { name: 'uses org guard', config: { input_guardrails: [org.body.slug] }, workspace_id: stack.workspaceId });
    expect(cfgOk.status).toBe(200);
  });

  it('workspace keys act in their own workspace only', async () => {
    const mine = await call('POST', '/v1/guardrails', { name: 'Mine', checks: [REGEX], actions: {} }, wsKey);
    expect(mine.status).toBe(200);
    expect(mine.body.created_by).toMatch(UUID_RE);
    expect((await sql('select workspace_id from guardrail where id = ?', [mine.body.id]))[0].workspace_id).toBe(stack.workspaceId);
    // organisation_id with a workspace key: still the key's workspace.
    const named = await call('POST', '/v1/guardrails', { name: 'Mine 2', organisation_id: stack.organisationId, checks: [REGEX], actions: {} }, wsKey);
    expect((await sql('select workspace_id from guardrail where id = ?', [named.body.id]))[0].workspace_id).toBe(stack.workspaceId);

    const other = await makeGuardrail({ workspace_id: otherWs.id });
    const before = await count('select count(*) n from guardrail');
    const denied = await call('POST', '/v1/guardrails', { name: 'X', checks: [REGEX], actions: {}, workspace_id: otherWs.slug }, wsKey);
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('other_workspace');
    expect(await count('select count(*) n from guardrail')).toBe(before);
    expect((await call('GET', `/v1/guardrails/${other.id}`, undefined, wsKey)).status).toBe(404);
    expect((await call('GET', `/v1/guardrails?workspace_id=${otherWs.id}`, undefined, wsKey)).status).toBe(404);
    const own = await call('GET', '/v1/guardrails', undefined, wsKey);
    expect(own.body.data.length).toBeGreaterThan(0);
    expect(own.body.data.every((g: any) => g.workspace_id === stack.workspaceId)).toBe(true);
    expect((await call('PUT', `/v1/guardrails/${other.id}`, { name: 'Nope' }, wsKey)).status).toBe(403);
    expect((await call('DELETE', `/v1/guardrails/${other.id}`, undefined, wsKey)).status).toBe(403);
    expect((await sql('select deleted_at from guardrail where id = ?', [other.id]))[0].deleted_at).toBeNull();

    const ro = await call('POST', '/v1/guardrails', { name: 'RO', checks: [REGEX], actions: {} }, readOnlyKey);
    expect(ro.body.error.code).toBe('missing_scope');
    expect((await call('DELETE', `/v1/guardrails/${mine.body.id}`, undefined, readOnlyKey)).status).toBe(403);
    expect((await call('GET', `/v1/guardrails/${mine.body.id}`, undefined, readOnlyKey)).status).toBe(200);
    expect((await call('GET', '/v1/guardrails', undefined, null)).status).toBe(401);
  });

  it('answers 400 naming the field (forwardHeaders, unknown check ids, parameters, actions), writing nothing', async () => {
    const before = [await count('select count(*) n from guardrail'), await count('select count(*) n from guardrail_version'), await count('select count(*) n from audit_event')];
    const cases: [unknown, string, RegExp?][] = [
      [{ checks: [{ ...HOOK, parameters: { ...HOOK.parameters, forwardHeaders: ['x-request-id', 'Authorization'] } }] }, 'checks[0].parameters.forwardHeaders[1]', /credential header/],
      [{ checks: [{ ...HOOK, parameters: { ...HOOK.parameters, forwardHeaders: ['x-gateway-api-key'] } }] }, 'checks[0].parameters.forwardHeaders[0]', /internal routing header/],
      [{ checks: [{ ...HOOK, parameters: { ...HOOK.parameters, forwardHeaders: ['Metadata-Flavor'] } }] }, 'checks[0].parameters.forwardHeaders[0]', /cloud-metadata header/],
      [{ checks: [{ ...HOOK, parameters: { ...HOOK.parameters, forwardHeaders: ['connection'] } }] }, 'checks[0].parameters.forwardHeaders[0]', /hop-by-hop header/],
      [{ checks: [{ ...HOOK, parameters: { ...HOOK.parameters, forwardHeaders: ['bad header'] } }] }, 'checks[0].parameters.forwardHeaders[0]', /not a valid header name/],
      [{ checks: [REGEX, { id: 'default.nope' }] }, 'checks[1].id', /unknown check id/],
      [{ checks: [{ id: 'default.regexMatch', parameters: {} }] }, 'checks[0].parameters.rule'],
      [{ checks: [] }, 'checks', /at least one check/],
      [{ checks: [REGEX], actions: { deny: 'yes' } }, 'actions.deny'],
      [{ checks: [REGEX], actions: { onFail: 'block', message: 'no' } }, 'actions.onFail'],
      [{ name: undefined }, 'name'],
      [{ checks: [REGEX], extra: 1 }, 'extra'],
      [{ workspace_id: 'ws-missing' }, 'workspace_id'],
    ];
    for (const [patch, param, message] of cases) {
      const r = await call('POST', '/v1/guardrails', { name: 'Bad', checks: [REGEX], actions: {}, workspace_id: stack.workspaceId, ...(patch as object) });
      expect([400, 404], JSON.stringify(patch)).toContain(r.status);
      expect(r.body.error.param, JSON.stringify(patch)).toBe(param);
      if (message) expect(r.body.error.message).toMatch(message);
    }
    expect([await count('select count(*) n from guardrail'), await count('select count(*) n from guardrail_version'), await count('select count(*) n from audit_event')]).toEqual(before);

    // Update validates the same way and leaves the guardrail as it was.
    const g = await makeGuardrail();
    const upd = await call('PUT', `/v1/guardrails/${g.id}`, { checks: [{ ...HOOK, parameters: { ...HOOK.parameters, forwardHeaders: ['cookie'] } }] });
    expect(upd.status).toBe(400);
    expect(upd.body.error).toMatchObject({ type: 'invalid_request_error', param: 'checks[0].parameters.forwardHeaders[0]' });
    expect(await count('select count(*) n from guardrail_version where guardrail_id = ?', [g.id])).toBe(1);
  });

  it('answers 404 for unknown guardrails and 409 deleting one still in use', async () => {
    expect((await call('GET', '/v1/guardrails/guard_missing-000000')).status).toBe(404);
    expect((await call('PUT', '/v1/guardrails/00000000-0000-4000-8000-000000000000', { name: 'x' })).status).toBe(404);
    expect((await call('DELETE', '/v1/guardrails/guard_missing-000000')).status).toBe(404);

    // Named by a config (by slug, nested in a target) …
    const g = await makeGuardrail();
    const cfg = await call('POST', '/v1/configs', { name: 'c', config: { strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', output_guardrails: [g.slug] }] }, workspace_id: stack.workspaceId });
    expect(cfg.status).toBe(200);
    const inUse = await call('DELETE', `/v1/guardrails/${g.id}`);
    expect(inUse.status).toBe(409);
    expect(inUse.body.error).toMatchObject({ code: 'guardrail_in_use', type: 'conflict_error', message: expect.stringContaining('config pc-c-') });
    await call('DELETE', `/v1/configs/${cfg.body.data.id}`);
    // … or by a workspace's defaults (by id).
    await sql(`update workspace set defaults = jsonb_set(defaults, '{input_guardrails}', jsonb_build_array(?::text)) where id = ?`, [g.id, otherWs.id]);
    const wsUse = await call('DELETE', `/v1/guardrails/${g.slug}`);
    expect(wsUse.body.error.message).toContain(`workspace ${otherWs.slug}`);
    await sql(`update workspace set defaults = defaults - 'input_guardrails' where id = ?`, [otherWs.id]);
    expect((await call('DELETE', `/v1/guardrails/${g.slug}`)).status).toBe(200);
    expect(await count("select count(*) n from audit_event where target_id = ? and action = 'guardrail.delete'", [g.id])).toBe(1);
  });

  it('a config saved while its guardrail is being deleted waits, then is refused (no dangling ref)', async () => {
    const g = await makeGuardrail();
    // Stand-in for a delete in flight: lock the row as deleteGuardrail does, then soft-delete it.
    const client = new pg.Client({ connectionString: stack.db.url });
    await client.connect();
    try {
      await client.query('begin');
      await client.query('select id from guardrail where id = $1 for update', [g.id]);
      const saving = call('POST', '/v1/configs', { name: 'racing', config: { input_guardrails: [g.slug] }, workspace_id: stack.workspaceId });
      // Wait until a backend is blocked by this one (activity stats are a per-transaction snapshot: clear it each time).
      for (;;) {
        await client.query('select pg_stat_clear_snapshot()');
        const { rows } = await client.query('select count(*)::int n from pg_stat_activity where pg_backend_pid() = any(pg_blocking_pids(pid))');
        if (rows[0].n > 0) break;
        await new Promise((r) => setImmediate(r));
      }
      await client.query('update guardrail set deleted_at = now() where id = $1', [g.id]);
      await client.query('commit');
      const saved = await saving;
      expect(saved.status).toBe(400);
      expect(saved.body.error.message).toBe(`Unknown guardrail: ${g.slug}`);
    } finally {
      await client.end();
    }
  });

  it('tells workers: resource_change keys <id> and <owner>:<slug>, and the guardrail resolver', async () => {
    const g = await makeGuardrail({ checks: [HOOK] });
    const keys = await sql('select resource_key, action from resource_change where resource_type = ? and resource_id = ? order by version', ['guardrail', g.id]);
    expect(keys).toEqual(expect.arrayContaining([{ resource_key: g.id, action: 'upsert' }, { resource_key: `${stack.workspaceId}:${g.slug}`, action: 'upsert' }]));
    const em = stack.db.orm.em.fork();
    for (const key of [g.id, `${stack.workspaceId}:${g.slug}`]) {
      const r = await guardrailWorkerResolver.resolve(em as any, key);
      expect(r!.version).toBeGreaterThan(0);
      expect(r!.payload).toMatchObject({ id: g.id, slug: g.slug, workspace_id: stack.workspaceId, actions: { deny: true } });
      // Workers get the real header values.
      expect((r!.payload.checks as any)[0].parameters.headers.Authorization).toBe('Bearer hook-secret-value-123');
    }
    expect(await guardrailWorkerResolver.resolve(em as any, `${otherWs.id}:${g.slug}`)).toBeNull();

    const org = await call('POST', '/v1/guardrails', { name: 'Org W', checks: [REGEX], actions: {} });
    const orgKey = `${stack.organisationId}:${org.body.slug}`;
    expect((await guardrailWorkerResolver.resolve(em as any, orgKey))!.payload).toMatchObject({ id: org.body.id, workspace_id: null });

    await call('DELETE', `/v1/guardrails/${g.id}`);
    const last = await sql('select resource_key, action from resource_change where resource_type = ? and resource_id = ? order by version desc limit 2', ['guardrail', g.id]);
    expect(last.map((r: any) => r.action)).toEqual(['delete', 'delete']);
    expect(await guardrailWorkerResolver.resolve(em as any, g.id)).toBeNull();
    expect(guardrailPolicyWorkerResolver.type).toBe('guardrail_policy');
  });
});

describe('guardrails over GraphQL', () => {
  it('runs the same lifecycle and errors', async () => {
    const created = await gql(
      `mutation($input: CreateGuardrailInput!) { createGuardrail(input: $input) { __typename ... on CreatedGuardrail { id slug version_id created_at created_by } ${ERR} } }`,
      { input: { name: 'GQL guard', checks: [REGEX], actions: { deny: true }, workspace_id: 'ws-default' } },
    );
    const c = created.body.data.createGuardrail;
    expect(c).toMatchObject({ __typename: 'CreatedGuardrail', id: expect.stringMatching(UUID_RE), slug: expect.stringMatching(/^guard_gql-guard-[0-9a-f]{6}$/), created_at: ISO, created_by: adminKeyId });

    const got = await gql('query($id: ID!) { guardrail(id: $id) { id slug name workspace_id checks { id parameters name is_enabled } actions { deny async on_fail { feedback { value weight metadata } } } } }', { id: c.slug });
    expect(got.body.data.guardrail).toEqual({
      id: c.id,
      slug: c.slug,
      name: 'GQL guard',
      workspace_id: stack.workspaceId,
      checks: [{ ...REGEX, is_enabled: true }],
      actions: { deny: true, async: false, on_fail: { feedback: { value: -5, weight: 1, metadata: '' } } },
    });

    const upd = await gql(`mutation($id: ID!, $input: UpdateGuardrailInput!) { updateGuardrail(id: $id, input: $input) { __typename ... on UpdatedGuardrail { id slug version_id } ${ERR} } }`, {
      id: c.id,
      input: { actions: { on_fail: { feedback: { value: -1 } } } },
    });
    expect(upd.body.data.updateGuardrail).toMatchObject({ __typename: 'UpdatedGuardrail', id: c.id, slug: c.slug });
    expect(upd.body.data.updateGuardrail.version_id).not.toBe(c.version_id);

    const list = await gql('query { guardrails(workspace_id: "ws-default", page_size: 1000) { total data { id } } }', {}, wsKey);
    expect(list.body.data.guardrails.data.map((x: any) => x.id)).toContain(c.id);

    const bad = await gql(`mutation($input: CreateGuardrailInput!) { createGuardrail(input: $input) { __typename ${ERR} } }`, {
      input: { name: 'bad', checks: [{ ...HOOK, parameters: { ...HOOK.parameters, forwardHeaders: ['proxy-authorization'] } }], actions: {}, workspace_id: 'ws-default' },
    });
    expect(bad.body.data.createGuardrail).toMatchObject({ __typename: 'GatewayError', status: 400, param: 'checks[0].parameters.forwardHeaders[0]' });

    const other = await makeGuardrail({ workspace_id: otherWs.id });
    const denied = await gql(`mutation($id: ID!) { deleteGuardrail(id: $id) { __typename ${ERR} } }`, { id: other.id }, wsKey);
    expect(denied.body.data.deleteGuardrail).toMatchObject({ __typename: 'GatewayError', status: 403 });
    const hidden = await gql('query($id: ID!) { guardrail(id: $id) { id } }', { id: other.id }, wsKey);
    expect(hidden.body.errors[0].extensions).toMatchObject({ code: 'not_found' });

    const del = await gql(`mutation($id: ID!) { deleteGuardrail(id: $id) { __typename ... on DeletedGuardrail { id slug } ${ERR} } }`, { id: c.id });
    expect(del.body.data.deleteGuardrail).toEqual({ __typename: 'DeletedGuardrail', id: c.id, slug: c.slug });
    const audit = await sql('select action from audit_event where target_id = ? order by created_at', [c.id]);
    expect(audit.map((a: any) => a.action)).toEqual(['guardrail.create', 'guardrail.update', 'guardrail.delete']);
  });
});
