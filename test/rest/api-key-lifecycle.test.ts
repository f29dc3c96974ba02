// API key lifecycle through REST and GraphQL: update, delete, rotation, claiming a scheduled
// rotation's secret, batch get, current_usage, and the organisation/workspace key settings
// enforced on create and update.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { hashApiKey } from '../../src/domain/api-key-secret.ts';
import { pendingSecretContext } from '../../src/services/api-keys/rotate-api-key.ts';
import { runScheduledRotations } from '../../src/services/api-keys/rotation-scheduler.ts';
import { startStack, type Stack } from '../support/stack.ts';

let stack: Stack;
let base: string;
const sql = <T = any>(q: string, params: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, params);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

async function call(method: string, path: string, body?: unknown, key: string | null = stack.adminKey) {
  const headers: Record<string, string> = {};
  if (key) headers['x-gateway-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
}
async function gql(query: string, variables: unknown = {}, key: string = stack.adminKey) {
  const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-gateway-api-key': key }, body: JSON.stringify({ query, variables }) });
  return { status: res.status, body: (await res.json()) as any };
}
const ERR = '... on GatewayError { code param status type message }';

async function serviceKey(body: Record<string, unknown> = {}) {
  return stack.createKey({ name: 'svc', workspace_id: 'ws-default', scopes: ['completions.write'], ...body });
}
async function newUser(role: 'owner' | 'admin' | 'member', wsRole: 'admin' | 'manager' | 'member' | null = null, workspaceId = stack.workspaceId): Promise<string> {
  const id = crypto.randomUUID();
  await sql('insert into app_user (id, organisation_id, email, role) values (?, ?, ?, ?)', [id, stack.organisationId, `${id}@example.com`, role]);
  if (wsRole) await sql('insert into workspace_member (id, workspace_id, user_id, role) values (?, ?, ?, ?)', [crypto.randomUUID(), workspaceId, id, wsRole]);
  return id;
}
async function newWorkspace(slug: string): Promise<string> {
  const id = crypto.randomUUID();
  await sql('insert into workspace (id, organisation_id, slug, name) values (?, ?, ?, ?)', [id, stack.organisationId, slug, slug]);
  return id;
}
async function userKey(userId: string, scopes: string[], extra: Record<string, unknown> = {}, workspace = 'ws-default') {
  return call('POST', '/v1/api-keys/workspace/user', { name: 'u', workspace_id: workspace, user_id: userId, scopes, ...extra });
}
const row = async (id: string) => (await sql('select * from api_key where id = ?', [id]))[0];
const events = (id: string, action?: string) =>
  sql('select * from audit_event where target_id = ? and (?::text is null or action = ?) order by created_at', [id, action ?? null, action ?? null]);
const auditTotal = async () => Number((await sql<{ n: string }>('select count(*) n from audit_event'))[0]!.n);
const near = (iso: string | null | undefined, expected: number, tolerance = 60_000) => {
  expect(iso).toBeTruthy();
  expect(Math.abs(Date.parse(iso!) - expected)).toBeLessThan(tolerance);
};
async function logTokens(keyId: string, tokens: number, startedAt = new Date()) {
  const id = crypto.randomUUID();
  await sql(
    `insert into request_log (id, idempotency_id, request_id, attempt, trace_id, organisation_id, workspace_id, api_key_id, provider, model, endpoint, method,
       status, latency_ms, upstream_latency_ms, prompt_tokens, completion_tokens, total_tokens, is_stream, started_at)
     values (?, ?, ?, 0, ?, ?, ?, ?, 'openai', 'gpt-4o-mini', 'chat.completions', 'POST', 200, 5, 4, ?, 0, ?, false, ?)`,
    [id, id, id, id, stack.organisationId, stack.workspaceId, keyId, tokens, tokens, startedAt],
  );
}

/** Makes the key due now and runs a scheduled-rotation pass (the stack's own job is off). */
async function scheduledRotation(id: string) {
  await sql(
    `update api_key set rotation_policy = jsonb_set(coalesce(rotation_policy, '{"rotation_period":"weekly"}'::jsonb), '{next_rotation_at}', to_jsonb(?::text)) where id = ?`,
    [new Date(Date.now() - 1000).toISOString(), id],
  );
  const done = await runScheduledRotations(stack.db.orm, stack.secretBox);
  expect(done.map((d) => d.id)).toContain(id);
  return row(id);
}

beforeAll(async () => {
  stack = await startStack({ workers: 0, rotationIntervalMs: 0 });
  base = stack.controlPlane.httpUrl;
});
afterAll(async () => stack?.close());

describe('PUT /v2/api-keys/{id} and /v1/api-keys/{id}', () => {
  it('updates every optional field, answers {} and records one api_key.update event', async () => {
    const k = await serviceKey();
    const before = await row(k.id);
    const expires = new Date(Date.now() + 3 * DAY).toISOString();
    const r = await call('PUT', `/v2/api-keys/${k.id}`, {
      name: 'renamed',
      description: 'desc',
      rate_limits: [{ type: 'requests', unit: 'rpm', value: 60 }],
      usage_limits: { credit_limit: 1000, type: 'tokens', alert_threshold: 800, periodic_reset: 'monthly' },
      scopes: ['completions.write', 'logs.list'],
      defaults: { metadata: { team: 'a' }, config_id: 'pc-1', allow_config_override: false },
      alert_emails: ['ops@example.com'],
      expires_at: expires,
      rotation_policy: { rotation_period: 'weekly', key_transition_period_ms: 3_600_000 },
    });
    expect(r).toEqual({ status: 200, body: {} });
    const got = (await call('GET', `/v2/api-keys/${k.id}`)).body;
    expect(got).toMatchObject({
      name: 'renamed',
      description: 'desc',
      rate_limits: [{ type: 'requests', unit: 'rpm', value: 60 }],
      usage_limits: { credit_limit: 1000, type: 'tokens', alert_threshold: 800, periodic_reset: 'monthly' },
      scopes: ['completions.write', 'logs.list'],
      defaults: { metadata: { team: 'a' }, config_id: 'pc-1', allow_config_override: false },
      alert_emails: ['ops@example.com'],
      expires_at: expires,
      rotation_policy: { rotation_period: 'weekly', key_transition_period_ms: 3_600_000 },
      rotation_pending: false,
      pending_key_created_at: null,
      type: 'workspace-service',
    });
    near(got.rotation_policy.next_rotation_at, Date.now() + 7 * DAY);
    const after = await row(k.id);
    expect(Number(after.revision)).toBeGreaterThan(Number(before.revision));
    const evs = await events(k.id, 'api_key.update');
    expect(evs).toHaveLength(1);
    const [admin] = await sql<{ id: string }>("select id from api_key where creation_mode = 'bootstrap'");
    expect(evs[0]).toMatchObject({ target_type: 'api_key', actor_type: 'api_key', actor_id: admin!.id, method: 'PUT', uri: `/v2/api-keys/${k.id}` });
    expect(evs[0].ip).toMatch(/127\.0\.0\.1/);
    expect(evs[0].request_details).toMatchObject({ name: 'renamed', scopes: ['completions.write', 'logs.list'] });
    expect(JSON.stringify(evs[0].request_details)).not.toContain(k.key);
  });

  it('clears nullable fields with null on the /v1 path, and keeps what was not sent', async () => {
    const k = await serviceKey({ description: 'd', alert_emails: ['a@example.com'], expires_at: new Date(Date.now() + DAY).toISOString(), rotation_policy: { rotation_period: 'monthly' } });
    expect((await call('PUT', `/v1/api-keys/${k.id}`, { description: null, expires_at: null, rotation_policy: null })).status).toBe(200);
    const got = (await call('GET', `/v1/api-keys/${k.id}`)).body;
    expect(got).toMatchObject({ description: null, expires_at: null, rotation_policy: null, alert_emails: ['a@example.com'], name: 'svc' });
  });

  it.each([
    [{ type: 'organisation-service' }, 'type'],
    [{ user_id: '00000000-0000-4000-8000-000000000000' }, 'user_id'],
    [{ workspace_id: 'ws-other' }, 'workspace_id'],
    [{ surprise: true }, 'surprise'],
    [{ name: '' }, 'name'],
    [{ rate_limits: [{ type: 'requests', unit: 'rpy', value: 1 }] }, 'rate_limits[0].unit'],
    [{ usage_limits: { credit_limit: 0 } }, 'usage_limits.credit_limit'],
    [{ rotation_policy: { rotation_period: 'weekly', rotation_period_days: 7 } }, 'rotation_policy.rotation_period_days'],
    [{ rotation_policy: { key_transition_period_ms: 1800000 } }, 'rotation_policy.rotation_period'],
    [{ expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
    [{ alert_emails: ['nope'] }, 'alert_emails[0]'],
    [{ scopes: ['no.such_scope'] }, 'scopes[0]'],
    [{ scopes: ['completions.write', 'workspaces.create'] }, 'scopes[1]'],
    [{ reset_usage: 'yes' }, 'reset_usage'],
  ])('answers 400 naming the field for %j and changes nothing', async (body, param) => {
    const k = await serviceKey();
    const before = await row(k.id);
    const audits = await auditTotal();
    const r = await call('PUT', `/v2/api-keys/${k.id}`, body);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param });
    expect(await row(k.id)).toEqual(before);
    expect(await auditTotal()).toBe(audits);
  });

  it('names immutable fields with a reason, and rejects bad bodies', async () => {
    const k = await serviceKey();
    const r = await call('PUT', `/v2/api-keys/${k.id}`, { type: 'workspace-user' });
    expect(r.body.error.message).toMatch(/cannot be changed/);
    expect((await call('PUT', `/v2/api-keys/${k.id}`, '{oops')).body.error.code).toBe('invalid_json');
    expect((await call('PUT', `/v2/api-keys/${k.id}`, '[]')).status).toBe(400);
  });

  it('answers 404 for unknown, malformed and deleted ids', async () => {
    expect((await call('PUT', '/v2/api-keys/00000000-0000-4000-8000-000000000000', { name: 'x' })).status).toBe(404);
    expect((await call('PUT', '/v2/api-keys/not-a-uuid', { name: 'x' })).status).toBe(404);
    const k = await serviceKey();
    await call('DELETE', `/v2/api-keys/${k.id}`);
    const r = await call('PUT', `/v2/api-keys/${k.id}`, { name: 'x' });
    expect(r.status).toBe(404);
    expect(r.body.error).toMatchObject({ type: 'not_found_error', param: 'id' });
  });

  it('answers 403: scopes beyond the updater, a missing scope, another workspace, an organisation key', async () => {
    const manager = await serviceKey({ scopes: ['workspace_service_api_keys.update', 'workspace_service_api_keys.read', 'completions.write'] });
    const target = await serviceKey();
    const ok = await call('PUT', `/v2/api-keys/${target.id}`, { name: 'by-ws-key', scopes: ['completions.write'] }, manager.key);
    expect(ok.status).toBe(200);
    const beyond = await call('PUT', `/v2/api-keys/${target.id}`, { scopes: ['logs.view'] }, manager.key);
    expect(beyond.status).toBe(403);
    expect(beyond.body.error).toMatchObject({ code: 'scope_exceeds_creator', param: 'scopes' });
    expect((await row(target.id)).scopes).toEqual(['completions.write']);

    const reader = await serviceKey({ scopes: ['workspace_service_api_keys.read'] });
    const noScope = await call('PUT', `/v2/api-keys/${target.id}`, { name: 'x' }, reader.key);
    expect(noScope.status).toBe(403);
    expect(noScope.body.error.code).toBe('missing_scope');

    await newWorkspace('ws-upd-other');
    const other = await serviceKey({ workspace_id: 'ws-upd-other' });
    const cross = await call('PUT', `/v2/api-keys/${other.id}`, { name: 'x' }, manager.key);
    expect(cross.status).toBe(403);
    expect((await call('GET', `/v2/api-keys/${other.id}`, undefined, manager.key)).status).toBe(404); // reads: not there

    const org = await call('POST', '/v1/api-keys/organisation/service', { name: 'org', scopes: ['workspaces.list'] });
    expect((await call('PUT', `/v2/api-keys/${org.body.id}`, { name: 'x' }, manager.key)).status).toBe(403);
    expect((await row(other.id)).name).toBe('svc');
  });

  it("bounds a user key's scopes by its user's role", async () => {
    const member = await newUser('member', 'member');
    const k = await userKey(member, ['completions.write']);
    expect(k.status).toBe(200);
    const r = await call('PUT', `/v2/api-keys/${k.body.id}`, { scopes: ['completions.write', 'configs.create'] });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('scope_exceeds_role');
    expect((await call('PUT', `/v2/api-keys/${k.body.id}`, { scopes: ['completions.write', 'logs.list'] })).status).toBe(200);
  });

  it('resets usage: the count starts again, an exhausted key is active again, the cleared usage is reported', async () => {
    const k = await serviceKey({ usage_limits: { credit_limit: 200, type: 'tokens' } });
    await logTokens(k.id, 25, new Date(Date.now() - 1000));
    await logTokens(k.id, 25, new Date(Date.now() - 1000));
    let got = (await call('GET', `/v2/api-keys/${k.id}`)).body;
    expect(got.current_usage).toEqual({ type: 'tokens', used: 50, limit: 200, fraction: 0.25, reset_at: null, next_reset_at: null, cost_tracking: 'available' });
    expect(got.reset_usage).toBe(0);
    await sql("update api_key set status = 'exhausted' where id = ?", [k.id]);

    expect((await call('PUT', `/v2/api-keys/${k.id}`, { reset_usage: true })).status).toBe(200);
    got = (await call('GET', `/v2/api-keys/${k.id}`)).body;
    expect(got.status).toBe('active');
    expect(got.reset_usage).toBe(50);
    near(got.last_reset_at, Date.now());
    expect(got.current_usage).toMatchObject({ used: 0, limit: 200, fraction: 0, reset_at: got.last_reset_at });
    expect(got.usage_limits).toEqual({ credit_limit: 200, type: 'tokens' }); // the reset instant is not a request field
    expect((await row(k.id)).usage_limits.last_reset_at).toBe(got.last_reset_at);

    await logTokens(k.id, 30, new Date(Date.now() + 1000));
    got = (await call('GET', `/v2/api-keys/${k.id}`)).body;
    expect(got.current_usage).toMatchObject({ used: 30, fraction: 0.15 });
    const ev = await events(k.id, 'api_key.update');
    expect(ev.at(-1).request_details.usage_reset).toMatchObject({ reset_usage: 50 });

    // A later change of the limits keeps the reset.
    await call('PUT', `/v2/api-keys/${k.id}`, { usage_limits: { credit_limit: 300, type: 'tokens' } });
    got = (await call('GET', `/v2/api-keys/${k.id}`)).body;
    expect(got.current_usage).toMatchObject({ used: 30, limit: 300, fraction: 0.1 });
  });

  it('reports current_usage for cost limits as untracked, and null without limits, on get and list', async () => {
    const cost = await serviceKey({ usage_limits: { credit_limit: 10, type: 'cost', periodic_reset: 'weekly' } });
    const none = await serviceKey();
    const got = (await call('GET', `/v2/api-keys/${cost.id}`)).body;
    expect(got.current_usage).toMatchObject({ type: 'cost', used: 0, limit: 10, fraction: 0, cost_tracking: 'unavailable' });
    near(got.current_usage.next_reset_at, Date.now() + 7 * DAY);
    const list = (await call('GET', `/v2/api-keys?ids=${cost.id},${none.id}`)).body;
    const byId = Object.fromEntries(list.data.map((d: any) => [d.id, d]));
    expect(byId[cost.id].current_usage.type).toBe('cost');
    expect(byId[none.id].current_usage).toBeNull();
  });

  it('works through GraphQL: updateApiKey answers the key, errors are typed', async () => {
    const k = await serviceKey();
    const ok = await gql(
      `mutation($id: ID!, $input: UpdateApiKeyInput!) { updateApiKey(id: $id, input: $input) { __typename ... on ApiKey { id name scopes } ${ERR} } }`,
      { id: k.id, input: { name: 'via-gql', scopes: ['completions.write', 'logs.view'] } },
    );
    expect(ok.body.data.updateApiKey).toEqual({ __typename: 'ApiKey', id: k.id, name: 'via-gql', scopes: ['completions.write', 'logs.view'] });
    expect(await events(k.id, 'api_key.update')).toHaveLength(1);
    const bad = await gql(
      `mutation($id: ID!) { updateApiKey(id: $id, input: { user_id: "x" }) { __typename ${ERR} } }`,
      { id: k.id },
    );
    expect(bad.body.data.updateApiKey).toMatchObject({ __typename: 'GatewayError', code: 'invalid_parameter', param: 'user_id', status: 400 });
    const missing = await gql(`mutation { updateApiKey(id: "00000000-0000-4000-8000-000000000000", input: { name: "x" }) { __typename ${ERR} } }`);
    expect(missing.body.data.updateApiKey).toMatchObject({ code: 'not_found', status: 404 });
  });
});

describe('DELETE /v2/api-keys/{id} and /v1/api-keys/{id}', () => {
  it('soft-deletes, answers {}, stops the key at once on the control plane, records one event', async () => {
    const k = await serviceKey({ scopes: ['workspace_service_api_keys.list'] });
    expect((await call('GET', '/v2/api-keys', undefined, k.key)).status).toBe(200);
    const r = await call('DELETE', `/v2/api-keys/${k.id}`);
    expect(r).toEqual({ status: 200, body: {} });
    const stored = await row(k.id);
    expect(stored.deleted_at).not.toBeNull(); // soft: the row stays
    const refused = await call('GET', '/v2/api-keys', undefined, k.key);
    expect(refused.status).toBe(401);
    expect((await call('GET', `/v2/api-keys/${k.id}`)).status).toBe(404);
    const all = (await call('GET', '/v2/api-keys?page_size=1000')).body;
    expect(all.data.map((d: any) => d.id)).not.toContain(k.id);
    const evs = await events(k.id, 'api_key.delete');
    expect(evs).toHaveLength(1);
    expect(evs[0]).toMatchObject({ method: 'DELETE', target_type: 'api_key' });
    expect((await call('DELETE', `/v2/api-keys/${k.id}`)).status).toBe(404);
    expect(await events(k.id, 'api_key.delete')).toHaveLength(1);
  });

  it('works on /v1 and through GraphQL; a key may delete itself', async () => {
    const a = await serviceKey();
    expect((await call('DELETE', `/v1/api-keys/${a.id}`)).status).toBe(200);
    const b = await serviceKey();
    const g = await gql(`mutation($id: ID!) { deleteApiKey(id: $id) { __typename ... on DeletedApiKey { id deleted } ${ERR} } }`, { id: b.id });
    expect(g.body.data.deleteApiKey).toEqual({ __typename: 'DeletedApiKey', id: b.id, deleted: true });
    const again = await gql(`mutation($id: ID!) { deleteApiKey(id: $id) { __typename ${ERR} } }`, { id: b.id });
    expect(again.body.data.deleteApiKey).toMatchObject({ __typename: 'GatewayError', status: 404 });

    const self = await serviceKey({ scopes: ['workspace_service_api_keys.delete'] });
    expect((await call('DELETE', `/v2/api-keys/${self.id}`, undefined, self.key)).status).toBe(200);
    expect((await call('DELETE', `/v2/api-keys/${self.id}`, undefined, self.key)).status).toBe(401);
    expect((await events(self.id, 'api_key.delete'))[0].request_details.self).toBe(true);
  });

  it('answers 403 without the delete scope or for another workspace, and deletes nothing', async () => {
    const k = await serviceKey();
    const weak = await serviceKey({ scopes: ['workspace_service_api_keys.read'] });
    expect((await call('DELETE', `/v2/api-keys/${k.id}`, undefined, weak.key)).status).toBe(403);
    await newWorkspace('ws-del-other');
    const other = await serviceKey({ workspace_id: 'ws-del-other' });
    const deleter = await serviceKey({ scopes: ['workspace_service_api_keys.delete'] });
    expect((await call('DELETE', `/v2/api-keys/${other.id}`, undefined, deleter.key)).status).toBe(403);
    expect((await row(k.id)).deleted_at).toBeNull();
    expect((await row(other.id)).deleted_at).toBeNull();
    expect(await events(other.id, 'api_key.delete')).toHaveLength(0);
  });
});

describe('POST /v2/api-keys/{id}/rotate and /v1/api-keys/{id}/rotate', () => {
  const listScopes = ['workspace_service_api_keys.list', 'workspace_service_api_keys.read'];

  it('issues a new secret; the old one works until the transition ends (default 24 h)', async () => {
    const k = await serviceKey({ scopes: listScopes });
    const before = await row(k.id);
    const r = await call('POST', `/v2/api-keys/${k.id}/rotate`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['id', 'key', 'key_transition_expires_at']);
    expect(r.body.id).toBe(k.id);
    expect(r.body.key).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(r.body.key).not.toBe(k.key);
    near(r.body.key_transition_expires_at, Date.now() + DAY);

    const after = await row(k.id);
    expect(after.key_hash).toBe(await hashApiKey(r.body.key));
    expect(after.previous_key_hash).toBe(before.key_hash);
    expect(new Date(after.previous_key_expires_at).toISOString()).toBe(r.body.key_transition_expires_at);
    near(new Date(after.last_rotated_at).toISOString(), Date.now());
    expect(JSON.stringify(after)).not.toContain(r.body.key);

    expect((await call('GET', `/v2/api-keys/${k.id}`, undefined, r.body.key)).status).toBe(200); // new: at once
    expect((await call('GET', `/v2/api-keys/${k.id}`, undefined, k.key)).status).toBe(200); // old: during the transition
    const view = (await call('GET', `/v2/api-keys/${k.id}`)).body;
    expect(view.key).toBe(`${r.body.key.slice(0, 4)}*******${r.body.key.slice(-2)}`);
    near(view.last_rotated_at, Date.now());

    const evs = await events(k.id, 'api_key.rotate');
    expect(evs).toHaveLength(1);
    expect(evs[0].request_details).toMatchObject({ scheduled: false, key_transition_period_ms: DAY, key_transition_expires_at: r.body.key_transition_expires_at });
    expect(JSON.stringify(evs[0].request_details)).not.toContain(r.body.key);
    expect(JSON.stringify(evs[0].request_details)).not.toContain(after.key_hash);

    // Once the transition has ended the old secret never works again.
    await sql("update api_key set previous_key_expires_at = now() - interval '1 second' where id = ?", [k.id]);
    expect((await call('GET', `/v2/api-keys/${k.id}`, undefined, k.key)).status).toBe(401);
    expect((await call('GET', `/v2/api-keys/${k.id}`, undefined, r.body.key)).status).toBe(200);
  });

  it('takes key_transition_period_ms from the body, else from the policy; a second rotation ends the oldest secret at once', async () => {
    const k = await serviceKey({ scopes: listScopes, rotation_policy: { rotation_period: 'weekly', key_transition_period_ms: 2 * HOUR } });
    const first = await call('POST', `/v1/api-keys/${k.id}/rotate`, {});
    near(first.body.key_transition_expires_at, Date.now() + 2 * HOUR);
    const policy = (await call('GET', `/v2/api-keys/${k.id}`)).body.rotation_policy;
    near(policy.next_rotation_at, Date.now() + 7 * DAY);
    const second = await call('POST', `/v2/api-keys/${k.id}/rotate`, { key_transition_period_ms: 1_800_000 });
    expect(second.status).toBe(200);
    near(second.body.key_transition_expires_at, Date.now() + 1_800_000);
    expect((await call('GET', `/v2/api-keys/${k.id}`, undefined, k.key)).status).toBe(401); // the original: gone
    expect((await call('GET', `/v2/api-keys/${k.id}`, undefined, first.body.key)).status).toBe(200); // previous
    expect((await call('GET', `/v2/api-keys/${k.id}`, undefined, second.body.key)).status).toBe(200); // current
    expect((await events(k.id, 'api_key.rotate'))[1].request_details.older_previous_secret_ended).toBe(true);
  });

  it.each([
    [{ key_transition_period_ms: 1000 }, 'key_transition_period_ms'],
    [{ key_transition_period_ms: '1800000' }, 'key_transition_period_ms'],
    [{ key_transition_period_ms: 8 * DAY }, 'key_transition_period_ms'], // not shorter than the weekly period
    [{ other: 1 }, 'other'],
  ])('answers 400 naming the field for %j and rotates nothing', async (body, param) => {
    const k = await serviceKey({ rotation_policy: { rotation_period: 'weekly' } });
    const before = await row(k.id);
    const r = await call('POST', `/v2/api-keys/${k.id}/rotate`, body);
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe(param);
    expect(await row(k.id)).toEqual(before);
    expect(await events(k.id, 'api_key.rotate')).toHaveLength(0);
  });

  it('answers 404 and 403 like update', async () => {
    expect((await call('POST', '/v2/api-keys/00000000-0000-4000-8000-000000000000/rotate')).status).toBe(404);
    const k = await serviceKey();
    const reader = await serviceKey({ scopes: ['workspace_service_api_keys.read'] });
    const r = await call('POST', `/v2/api-keys/${k.id}/rotate`, undefined, reader.key);
    expect(r.status).toBe(403);
    expect((await row(k.id)).previous_key_hash).toBeNull();
  });

  it('works through GraphQL, and a key may rotate itself', async () => {
    const k = await serviceKey({ scopes: [...listScopes, 'workspace_service_api_keys.update'] });
    const g = await gql(
      `mutation($id: ID!) { rotateApiKey(id: $id, input: { key_transition_period_ms: 3600000 }) { __typename ... on RotatedApiKey { id key key_transition_expires_at } ${ERR} } }`,
      { id: k.id },
      k.key,
    );
    const out = g.body.data.rotateApiKey;
    expect(out.__typename).toBe('RotatedApiKey');
    near(out.key_transition_expires_at, Date.now() + HOUR);
    expect((await call('GET', `/v2/api-keys/${k.id}`, undefined, out.key)).status).toBe(200);
    const bad = await gql(`mutation($id: ID!) { rotateApiKey(id: $id, input: { key_transition_period_ms: 5 }) { __typename ${ERR} } }`, { id: k.id });
    expect(bad.body.data.rotateApiKey).toMatchObject({ __typename: 'GatewayError', param: 'key_transition_period_ms', status: 400 });
  });
});

describe('POST /v2/api-keys/{id}/rotation/claim and /v1/api-keys/{id}/rotation/claim', () => {
  const CLAIM = `mutation($id: ID!) { claimRotatedApiKey(id: $id) { __typename ... on ClaimedRotatedApiKey { id key rotated_at key_transition_expires_at } ${ERR} } }`;
  const claimPath = (id: string, v = 'v2') => `/${v}/api-keys/${id}/rotation/claim`;

  it('answers the scheduled rotation\'s secret once, clears it in the same transaction, records one event without it', async () => {
    const k = await serviceKey({ scopes: ['workspace_service_api_keys.read'] });
    const rotated = await scheduledRotation(k.id);
    expect(rotated.pending_key_ciphertext).toBeTruthy();
    const audits = await auditTotal();

    const r = await call('POST', claimPath(k.id));
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['id', 'key', 'key_transition_expires_at', 'rotated_at']);
    expect(r.body).toMatchObject({
      id: k.id,
      rotated_at: new Date(rotated.pending_key_created_at).toISOString(),
      key_transition_expires_at: new Date(rotated.previous_key_expires_at).toISOString(),
    });
    expect(await hashApiKey(r.body.key)).toBe(rotated.key_hash);
    expect(rotated.pending_key_ciphertext).not.toContain(r.body.key);
    expect(stack.secretBox.open(rotated.pending_key_ciphertext, pendingSecretContext(k.id))).toBe(r.body.key);

    const after = await row(k.id);
    expect(after).toEqual({ ...rotated, pending_key_ciphertext: null, pending_key_mask: null, pending_key_created_at: null, updated_at: after.updated_at, revision: after.revision });
    expect(JSON.stringify(after)).not.toContain(r.body.key);
    expect(await auditTotal()).toBe(audits + 1);
    const evs = await events(k.id, 'api_key.claim_rotated_secret');
    expect(evs).toHaveLength(1);
    const [admin] = await sql<{ id: string }>("select id from api_key where creation_mode = 'bootstrap'");
    expect(evs[0]).toMatchObject({ target_type: 'api_key', actor_type: 'api_key', actor_id: admin!.id, method: 'POST', uri: claimPath(k.id), workspace_id: stack.workspaceId });
    expect(evs[0].ip).toMatch(/127\.0\.0\.1/);
    expect(evs[0].request_details).toMatchObject({ self: false, rotated_at: r.body.rotated_at, key_transition_expires_at: r.body.key_transition_expires_at });
    expect(JSON.stringify(evs[0])).not.toContain(r.body.key);

    // The claimed secret works at once; the old one during the transition.
    expect((await call('GET', `/v2/api-keys/${k.id}`, undefined, r.body.key)).status).toBe(200);
    expect((await call('GET', `/v2/api-keys/${k.id}`, undefined, k.key)).status).toBe(200);

    // Twice: 404 no_pending_secret, nothing written.
    const again = await call('POST', claimPath(k.id, 'v1'));
    expect(again.status).toBe(404);
    expect(again.body.error).toMatchObject({ type: 'not_found_error', code: 'no_pending_secret', param: 'id' });
    expect(await auditTotal()).toBe(audits + 1);
  });

  it('gives the secret to exactly one of two concurrent claims', async () => {
    const k = await serviceKey();
    const rotated = await scheduledRotation(k.id);
    const both = await Promise.all([call('POST', claimPath(k.id)), call('POST', claimPath(k.id, 'v1'))]);
    expect(both.map((b) => b.status).sort()).toEqual([200, 404]);
    const won = both.find((b) => b.status === 200)!;
    expect(await hashApiKey(won.body.key)).toBe(rotated.key_hash);
    expect(both.find((b) => b.status === 404)!.body.error.code).toBe('no_pending_secret');
    expect(await events(k.id, 'api_key.claim_rotated_secret')).toHaveLength(1);
  });

  it('answers 404 no_pending_secret for a key that was never rotated by the schedule or was rotated by hand since', async () => {
    const never = await serviceKey();
    const r = await call('POST', claimPath(never.id));
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('no_pending_secret');
    const manual = await serviceKey();
    await scheduledRotation(manual.id);
    expect((await call('POST', `/v2/api-keys/${manual.id}/rotate`)).status).toBe(200);
    expect((await call('POST', claimPath(manual.id))).body.error.code).toBe('no_pending_secret');
    expect(await events(never.id, 'api_key.claim_rotated_secret')).toHaveLength(0);
  });

  it('answers 404 for unknown, malformed and deleted ids (a deleted key loses its waiting secret), 401 without a key', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const r = await call('POST', claimPath(id));
      expect(r.status).toBe(404);
      expect(r.body.error).toMatchObject({ code: 'not_found', param: 'id' });
    }
    const k = await serviceKey();
    await scheduledRotation(k.id);
    expect((await call('POST', claimPath(k.id), undefined, null)).status).toBe(401);
    expect((await row(k.id)).pending_key_ciphertext).toBeTruthy();
    await call('DELETE', `/v2/api-keys/${k.id}`);
    expect(await row(k.id)).toMatchObject({ pending_key_ciphertext: null, pending_key_mask: null, pending_key_created_at: null });
    expect((await call('POST', claimPath(k.id))).body.error.code).toBe('not_found');
  });

  it('needs the key\'s update permission, like rotate: 403 without it or for another workspace or an organisation key; the secret stays', async () => {
    const k = await serviceKey();
    const rotated = await scheduledRotation(k.id);
    const reader = await serviceKey({ scopes: ['workspace_service_api_keys.read', 'workspace_service_api_keys.list'] });
    const noScope = await call('POST', claimPath(k.id), undefined, reader.key);
    expect(noScope.status).toBe(403);
    expect(noScope.body.error).toMatchObject({ type: 'permission_error', code: 'missing_scope' });

    await newWorkspace('ws-claim-other');
    const other = await serviceKey({ workspace_id: 'ws-claim-other' });
    await scheduledRotation(other.id);
    const updater = await serviceKey({ scopes: ['workspace_service_api_keys.update'] });
    expect((await call('POST', claimPath(other.id), undefined, updater.key)).status).toBe(403);

    const org = await call('POST', '/v1/api-keys/organisation/service', { name: 'org', scopes: ['workspaces.list'] });
    await scheduledRotation(org.body.id);
    expect((await call('POST', claimPath(org.body.id), undefined, updater.key)).status).toBe(403);

    for (const id of [k.id, other.id, org.body.id]) {
      expect((await row(id)).pending_key_ciphertext).toBeTruthy();
      expect(await events(id, 'api_key.claim_rotated_secret')).toHaveLength(0);
    }
    expect((await row(k.id)).pending_key_ciphertext).toBe(rotated.pending_key_ciphertext);
    // With the permission: the workspace key claims in its workspace; the admin key claims the organisation key.
    expect((await call('POST', claimPath(k.id), undefined, updater.key)).status).toBe(200);
    expect((await call('POST', claimPath(org.body.id))).status).toBe(200);
  });

  it("never claims another user's user key (404); a user claims their own", async () => {
    const alice = await newUser('member', 'member');
    const bob = await newUser('member', 'manager');
    const aliceKey = await userKey(alice, ['completions.write']);
    const bobKey = await userKey(bob, ['workspace_user_api_keys.read', 'workspace_user_api_keys.update']);
    await scheduledRotation(aliceKey.body.id);
    const bobRotated = await scheduledRotation(bobKey.body.id);
    const r = await call('POST', claimPath(aliceKey.body.id), undefined, bobKey.body.key);
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('not_found');
    expect((await row(aliceKey.body.id)).pending_key_ciphertext).toBeTruthy();

    const own = await call('POST', claimPath(bobKey.body.id), undefined, bobKey.body.key); // with the old secret, in its transition
    expect(own.status).toBe(200);
    expect(await hashApiKey(own.body.key)).toBe(bobRotated.key_hash);
    const ev = await events(bobKey.body.id, 'api_key.claim_rotated_secret');
    expect(ev[0]).toMatchObject({ user_id: bob, actor_id: bobKey.body.id });
    expect(ev[0].request_details.self).toBe(true);
  });

  it('works through GraphQL: claimRotatedApiKey answers the secret once, errors are typed', async () => {
    const k = await serviceKey();
    const rotated = await scheduledRotation(k.id);
    const view = await gql('query($id: ID!) { apiKey(id: $id) { rotation_pending pending_key_created_at } }', { id: k.id });
    expect(view.body.data.apiKey).toEqual({ rotation_pending: true, pending_key_created_at: new Date(rotated.pending_key_created_at).toISOString() });

    const reader = await serviceKey({ scopes: ['workspace_service_api_keys.read'] });
    const denied = await gql(CLAIM, { id: k.id }, reader.key);
    expect(denied.body.data.claimRotatedApiKey).toMatchObject({ __typename: 'GatewayError', code: 'missing_scope', status: 403 });

    const ok = await gql(CLAIM, { id: k.id });
    const out = ok.body.data.claimRotatedApiKey;
    expect(out).toMatchObject({ __typename: 'ClaimedRotatedApiKey', id: k.id, rotated_at: new Date(rotated.pending_key_created_at).toISOString() });
    expect(await hashApiKey(out.key)).toBe(rotated.key_hash);
    expect((await events(k.id, 'api_key.claim_rotated_secret'))[0]).toMatchObject({ method: 'POST', uri: '/graphql' });

    const again = await gql(CLAIM, { id: k.id });
    expect(again.body.data.claimRotatedApiKey).toMatchObject({ __typename: 'GatewayError', code: 'no_pending_secret', status: 404, param: 'id' });
    const missing = await gql(CLAIM, { id: '00000000-0000-4000-8000-000000000000' });
    expect(missing.body.data.claimRotatedApiKey).toMatchObject({ code: 'not_found', status: 404 });
    const after = await gql('query($id: ID!) { apiKey(id: $id) { rotation_pending pending_key_created_at } }', { id: k.id });
    expect(after.body.data.apiKey).toEqual({ rotation_pending: false, pending_key_created_at: null });
  });
});

describe('GET /v2/api-keys?ids= (batch) and what a person may see', () => {
  it('answers only the named keys the caller may see, never raw secrets', async () => {
    const a = await serviceKey();
    const b = await serviceKey();
    const gone = await serviceKey();
    await call('DELETE', `/v2/api-keys/${gone.id}`);
    const r = await call('GET', `/v2/api-keys?ids=${a.id},${b.id},${gone.id},00000000-0000-4000-8000-000000000000`);
    expect(r.status).toBe(200);
    expect(r.body.object).toBe('list');
    expect(r.body.total).toBe(2);
    expect(r.body.data.map((d: any) => d.id).sort()).toEqual([a.id, b.id].sort());
    expect(JSON.stringify(r.body)).not.toContain(a.key);
    const v1 = await call('GET', `/v1/api-keys?ids=${a.id}`);
    expect(v1.body.data.map((d: any) => d.id)).toEqual([a.id]);
    const g = await gql('query($ids: [String!]) { apiKeys(ids: $ids) { total data { id key } } }', { ids: [b.id] });
    expect(g.body.data.apiKeys).toEqual({ total: 1, data: [{ id: b.id, key: expect.stringContaining('*******') }] });
  });

  it('answers 400 naming ids for a malformed id', async () => {
    for (const q of ['ids=abc', 'ids=,', `ids=${'0'.repeat(36)}`]) {
      const r = await call('GET', `/v2/api-keys?${q}`);
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe('ids');
    }
    const g = await gql('{ apiKeys(ids: ["nope"]) { total } }');
    expect(g.body.errors[0].extensions.code).toBe('invalid_parameter');
  });

  it("never shows, changes or rotates another user's user key; workspace keys see their workspace only", async () => {
    const alice = await newUser('member', 'member');
    const bob = await newUser('member', 'manager');
    const aliceKey = await userKey(alice, ['completions.write']);
    const bobKey = await userKey(bob, ['workspace_user_api_keys.list', 'workspace_user_api_keys.read', 'workspace_user_api_keys.update', 'workspace_user_api_keys.delete', 'workspace_service_api_keys.list']);
    const svc = await serviceKey();
    await newWorkspace('ws-batch-other');
    const otherWs = await serviceKey({ workspace_id: 'ws-batch-other' });

    const ids = [aliceKey.body.id, bobKey.body.id, svc.id, otherWs.id].join(',');
    const seen = await call('GET', `/v2/api-keys?ids=${ids}`, undefined, bobKey.body.key);
    expect(seen.status).toBe(200);
    expect(seen.body.data.map((d: any) => d.id).sort()).toEqual([bobKey.body.id, svc.id].sort());
    const list = await call('GET', '/v2/api-keys?page_size=1000', undefined, bobKey.body.key);
    const listed = list.body.data.map((d: any) => d.id);
    expect(listed).not.toContain(aliceKey.body.id);
    expect(listed).not.toContain(otherWs.id);
    expect(JSON.stringify(list.body)).not.toContain(aliceKey.body.key);
    expect(list.body.data.every((d: any) => d.user_id === null || d.user_id === bob)).toBe(true);

    expect((await call('GET', `/v2/api-keys/${aliceKey.body.id}`, undefined, bobKey.body.key)).status).toBe(404);
    expect((await call('PUT', `/v2/api-keys/${aliceKey.body.id}`, { name: 'x' }, bobKey.body.key)).status).toBe(404);
    expect((await call('POST', `/v2/api-keys/${aliceKey.body.id}/rotate`, undefined, bobKey.body.key)).status).toBe(404);
    expect((await call('DELETE', `/v2/api-keys/${aliceKey.body.id}`, undefined, bobKey.body.key)).status).toBe(404);
    expect((await call('PUT', `/v2/api-keys/${bobKey.body.id}`, { name: 'mine' }, bobKey.body.key)).status).toBe(200);
    expect((await row(aliceKey.body.id)).name).toBe('u');
  });
});

describe('organisation and workspace key settings, enforced on create and update', () => {
  let wsId: string;
  let member: string;
  const WS = 'ws-rules';
  const setWs = (settings: Record<string, unknown>) => sql('update workspace set settings = ?::jsonb where id = ?', [JSON.stringify(settings), wsId]);
  const setOrg = (settings: Record<string, unknown>) => sql('update organisation set settings = ?::jsonb where id = ?', [JSON.stringify(settings), stack.organisationId]);

  beforeAll(async () => {
    wsId = await newWorkspace(WS);
    member = await newUser('member', 'member', wsId);
    await setWs({ user_api_key_rotation_period: 7, max_user_api_keys_per_user: 2, default_api_key_expiry_days: 10, max_api_key_expiry_days: 30 });
  });

  it('gives a user key without a policy the enforced cadence and the default expiry', async () => {
    const r = await userKey(member, ['completions.write'], {}, WS);
    expect(r.status).toBe(200);
    const got = (await call('GET', `/v2/api-keys/${r.body.id}`)).body;
    expect(got.rotation_policy).toMatchObject({ rotation_period_days: 7 });
    near(got.rotation_policy.next_rotation_at, Date.now() + 7 * DAY);
    near(got.expires_at, Date.now() + 10 * DAY);
    await call('DELETE', `/v2/api-keys/${r.body.id}`);
  });

  it.each([
    [{ rotation_policy: { rotation_period: 'monthly' } }, 'rotation_policy.rotation_period'],
    [{ rotation_policy: { rotation_period_days: 14 } }, 'rotation_policy.rotation_period_days'],
    [{ expires_at: new Date(Date.now() + 40 * DAY).toISOString() }, 'expires_at'],
  ])('refuses a user key create with %j (400 naming the field)', async (extra, param) => {
    const before = await sql('select count(*) n from api_key');
    const r = await userKey(member, ['completions.write'], extra, WS);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ param, type: 'invalid_request_error' });
    expect(await sql('select count(*) n from api_key')).toEqual(before);
  });

  it('accepts a matching policy (weekly = 7 days) and the maximum expiry; service keys are bound by expiry only', async () => {
    const ok = await userKey(member, ['completions.write'], { rotation_policy: { rotation_period: 'weekly' }, expires_at: new Date(Date.now() + 29 * DAY).toISOString() }, WS);
    expect(ok.status).toBe(200);
    expect((await row(ok.body.id)).rotation_policy.rotation_period).toBe('weekly');
    const svc = await serviceKey({ workspace_id: WS, rotation_policy: { rotation_period: 'monthly' } });
    const svcRow = await row(svc.id);
    expect(svcRow.rotation_policy.rotation_period).toBe('monthly');
    near(new Date(svcRow.expires_at).toISOString(), Date.now() + 10 * DAY);
    const tooLate = await call('POST', '/v2/api-keys/service', { name: 's', workspace_id: WS, scopes: ['completions.write'], expires_at: new Date(Date.now() + 31 * DAY).toISOString() });
    expect(tooLate.body.error.param).toBe('expires_at');
    await call('DELETE', `/v2/api-keys/${ok.body.id}`);
  });

  it.each([
    [{ rotation_policy: { rotation_period: 'weekly', next_rotation_at: new Date(Date.now() + DAY).toISOString() } }, 'rotation_policy.next_rotation_at'],
    [{ rotation_policy: { rotation_period: 'monthly' } }, 'rotation_policy.rotation_period'],
    [{ rotation_policy: { rotation_period_days: 8 } }, 'rotation_policy.rotation_period_days'],
    [{ rotation_policy: null }, 'rotation_policy'],
    [{ expires_at: null }, 'expires_at'],
    [{ expires_at: new Date(Date.now() + 31 * DAY).toISOString() }, 'expires_at'],
  ])('refuses a user key update with %j (400 naming the field)', async (body, param) => {
    const k = await userKey(member, ['completions.write'], {}, WS);
    const before = await row(k.body.id);
    const r = await call('PUT', `/v2/api-keys/${k.body.id}`, body);
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe(param);
    expect(await row(k.body.id)).toEqual(before);
    expect(await events(k.body.id, 'api_key.update')).toHaveLength(0);
    await call('DELETE', `/v2/api-keys/${k.body.id}`);
  });

  it('keeps next_rotation_at when an update restates the enforced cadence', async () => {
    const k = await userKey(member, ['completions.write'], {}, WS);
    const next = (await row(k.body.id)).rotation_policy.next_rotation_at;
    const r = await call('PUT', `/v2/api-keys/${k.body.id}`, { rotation_policy: { rotation_period_days: 7, key_transition_period_ms: 3_600_000 } });
    expect(r.status).toBe(200);
    expect((await row(k.body.id)).rotation_policy).toEqual({ rotation_period_days: 7, key_transition_period_ms: 3_600_000, next_rotation_at: next });
    await call('DELETE', `/v2/api-keys/${k.body.id}`);
  });

  it('allows at most max_user_api_keys_per_user active user keys per user (409 key_limit_reached)', async () => {
    const live = await sql<{ id: string }>('select id from api_key where user_id = ? and deleted_at is null', [member]);
    for (const l of live) await call('DELETE', `/v2/api-keys/${l.id}`);
    const one = await userKey(member, ['completions.write'], {}, WS);
    const two = await userKey(member, ['completions.write'], {}, WS);
    expect([one.status, two.status]).toEqual([200, 200]);
    const three = await userKey(member, ['completions.write'], {}, WS);
    expect(three.status).toBe(409);
    expect(three.body.error).toMatchObject({ type: 'conflict_error', code: 'key_limit_reached' });
    // Other workspaces count separately; a deleted key frees a place.
    const elsewhere = await newUser('admin', null);
    expect((await userKey(elsewhere, ['completions.write'], {}, WS)).status).toBe(200);
    await call('DELETE', `/v2/api-keys/${one.body.id}`);
    expect((await userKey(member, ['completions.write'], {}, WS)).status).toBe(200);

    const g = await gql(
      `mutation($input: CreateApiKeyInput!) { createApiKey(type: "workspace", sub_type: "user", input: $input) { __typename ${ERR} } }`,
      { input: { name: 'g', workspace_id: WS, user_id: member, scopes: ['completions.write'] } },
    );
    expect(g.body.data.createApiKey).toMatchObject({ __typename: 'GatewayError', code: 'key_limit_reached', status: 409 });
  });

  it('enforces through GraphQL on update too', async () => {
    const [k] = await sql<{ id: string }>('select id from api_key where user_id = ? and deleted_at is null limit 1', [member]);
    const g = await gql(
      `mutation($id: ID!) { updateApiKey(id: $id, input: { rotation_policy: { rotation_period: "monthly" } }) { __typename ${ERR} } }`,
      { id: k!.id },
    );
    expect(g.body.data.updateApiKey).toMatchObject({ __typename: 'GatewayError', param: 'rotation_policy.rotation_period', status: 400 });
  });

  it('applies organisation settings to organisation user keys (monthly = 30 days)', async () => {
    const admin = await newUser('admin');
    await setOrg({ user_api_key_rotation_period: 'monthly', max_api_key_expiry_days: 90 });
    try {
      const r = await call('POST', '/v1/api-keys/organisation/user', { name: 'mine', user_id: admin, scopes: ['workspaces.list'] });
      expect(r.status).toBe(200);
      const stored = await row(r.body.id);
      expect(stored.rotation_policy.rotation_period_days).toBe(30);
      near(new Date(stored.expires_at).toISOString(), Date.now() + 90 * DAY);
      const bad = await call('POST', '/v1/api-keys/organisation/user', { name: 'mine', user_id: admin, scopes: ['workspaces.list'], rotation_policy: { rotation_period: 'weekly' } });
      expect(bad.body.error.param).toBe('rotation_policy.rotation_period');
      const monthly = await call('POST', '/v1/api-keys/organisation/user', { name: 'mine', user_id: admin, scopes: ['workspaces.list'], rotation_policy: { rotation_period: 'monthly' } });
      expect(monthly.status).toBe(200);
    } finally {
      await setOrg({});
    }
  });
});
