import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { policySetResolver } from '../../src/services/policies/worker-resolver.ts';
import { accruePolicyUsage } from '../../src/services/policies/usage-period.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { graphqlCall, restCall } from '../support/api.ts';

let stack: Stack;
let base: string;
let wsKey: string;
let readOnlyKey: string;
let otherWs: { id: string; slug: string };

const sql = <T = any>(q: string, params: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, params);
const count = async (q: string, params: unknown[] = []) => Number((await sql<{ n: string }>(q, params))[0]!.n);

const call = restCall(() => base, () => stack.adminKey);

const gql = graphqlCall(() => base, () => stack.adminKey);

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ERR = '... on GatewayError { message code type param status }';
const RATE = { name: '100 RPM per key', conditions: [{ key: 'workspace_id', value: '*' }], group_by: [{ key: 'api_key' }], type: 'requests', unit: 'rpm', value: 100 };
const USAGE = { name: 'Monthly budget', conditions: [{ key: 'metadata.team', value: ['ml', 'infra'] }], group_by: [{ key: 'metadata._user' }], type: 'cost', credit_limit: 50, alert_threshold: 40, periodic_reset: 'monthly' };

const policySet = async () => {
  const em = stack.db.orm.em.fork();
  return (await policySetResolver.resolve(em, stack.organisationId))!;
};

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  base = stack.controlPlane.httpUrl;
  const all = ['create', 'read', 'update', 'delete', 'list'];
  wsKey = (await stack.createKey({ name: 'pol ws', workspace_id: 'ws-default', scopes: [...all.map((a) => `rate_limit_policies.${a}`), ...all.map((a) => `usage_limit_policies.${a}`)] })).key;
  readOnlyKey = (await stack.createKey({ name: 'pol ro', workspace_id: 'ws-default', scopes: ['rate_limit_policies.read', 'rate_limit_policies.list'] })).key;
  const ws = await call('POST', '/v1/admin/workspaces', { name: 'Pol Other' });
  expect(ws.status).toBe(200);
  otherWs = ws.body;
});
afterAll(async () => stack?.close());

describe('rate-limit policies over REST', () => {
  it('creates, lists with filters, gets, updates (conditions too), and deletes by archiving', async () => {
    const created = await call('POST', '/v2/policies/rate-limits', { ...RATE, workspace_id: stack.workspaceId });
    expect(created).toEqual({ status: 200, body: { id: expect.stringMatching(UUID_RE), object: 'policy_rate_limits' } });
    const id = created.body.id;
    const mcp = await call('POST', '/v1/policies/rate-limits', { ...RATE, target: 'mcp_tools', conditions: [{ key: 'mcp_tool', value: 'search' }], workspace_id: 'ws-default' });
    expect(mcp.status).toBe(200);

    const item = {
      id,
      name: RATE.name,
      target: 'llm',
      conditions: RATE.conditions,
      group_by: RATE.group_by,
      type: 'requests',
      unit: 'rpm',
      value: 100,
      status: 'active',
      workspace_id: stack.workspaceId,
      organisation_id: stack.organisationId,
      created_at: ISO,
      last_updated_at: ISO,
    };
    const list = await call('GET', '/v2/policies/rate-limits');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ object: 'list', data: [item, expect.objectContaining({ id: mcp.body.id, target: 'mcp_tools' })], total: 2 });
    const llmOnly = await call('GET', '/v2/policies/rate-limits?target=llm');
    expect(llmOnly.body.data.map((p: any) => p.id)).toEqual([id]);
    expect((await call('GET', '/v2/policies/rate-limits?target=mcp_tools')).body.data.map((p: any) => p.id)).toEqual([mcp.body.id]);
    expect((await call('GET', '/v2/policies/rate-limits?unit=rph')).body).toEqual({ object: 'list', data: [], total: 0 });
    expect((await call('GET', `/v2/policies/rate-limits?workspace_id=${otherWs.slug}`)).body.total).toBe(0);
    const paged = await call('GET', '/v2/policies/rate-limits?page_size=1&current_page=1');
    expect([paged.body.total, paged.body.data.map((p: any) => p.id)]).toEqual([2, [mcp.body.id]]);
    expect((await call('GET', '/v2/policies/rate-limits?target=tools')).body.error.param).toBe('target');

    expect(await call('GET', `/v1/policies/rate-limits/${id}`)).toEqual({ status: 200, body: { ...item, object: 'policy_rate_limits' } });

    const upd = await call('PUT', `/v2/policies/rate-limits/${id}`, { name: 'Renamed', unit: 'rph', value: 5000, conditions: [{ key: 'api_key', value: 'k1' }] });
    expect(upd).toEqual({ status: 200, body: {} });
    expect((await call('GET', `/v2/policies/rate-limits/${id}`)).body).toMatchObject({ name: 'Renamed', unit: 'rph', value: 5000, conditions: [{ key: 'api_key', value: 'k1' }], type: 'requests' });
    // Fields the spec does not let an update change.
    const typeChange = await call('PUT', `/v2/policies/rate-limits/${id}`, { type: 'tokens' });
    expect(typeChange.status).toBe(400);
    expect(typeChange.body.error.param).toBe('type');

    expect(await call('DELETE', `/v2/policies/rate-limits/${id}`)).toEqual({ status: 200, body: {} });
    expect((await call('GET', `/v2/policies/rate-limits/${id}`)).status).toBe(404);
    expect((await call('GET', `/v2/policies/rate-limits/${id}?status=archived`)).body).toMatchObject({ id, status: 'archived' });
    expect((await call('GET', '/v2/policies/rate-limits?status=archived')).body.data.map((p: any) => p.id)).toEqual([id]);
    expect((await call('PUT', `/v2/policies/rate-limits/${id}`, { value: 1 })).status).toBe(404);
    expect((await call('DELETE', `/v2/policies/rate-limits/${id}`)).status).toBe(404);

    const audit = await sql('select action from audit_event where target_id = ? order by created_at', [id]);
    expect(audit.map((a: any) => a.action)).toEqual(['rate_limit_policy.create', 'rate_limit_policy.update', 'rate_limit_policy.delete']);
    await call('DELETE', `/v2/policies/rate-limits/${mcp.body.id}`);
  });

  it('validates conditions against the policy type and target, writing nothing', async () => {
    const before = [await count('select count(*) n from rate_limit_policy'), await count('select count(*) n from audit_event')];
    const cases: [Record<string, unknown>, string][] = [
      [{ conditions: [] }, 'conditions'],
      [{ conditions: undefined }, 'conditions'],
      [{ conditions: [{ key: 'team', value: 'ml' }] }, 'conditions[0].key'],
      // model and provider only for target llm (issue 8 item 2).
      [{ target: 'mcp_tools', group_by: [{ key: 'mcp_server' }], conditions: [{ key: 'provider', value: 'openai' }] }, 'conditions[0].key'],
      // MCP keys only for target mcp_tools.
      [{ conditions: [{ key: 'mcp_tool', value: 'search' }] }, 'conditions[0].key'],
      [{ conditions: [{ key: 'api_key', value: 'a' }, { key: 'api_key', value: 'b' }] }, 'conditions[1].key'],
      [{ conditions: [{ key: 'api_key', value: [] }] }, 'conditions[0].value'],
      [{ group_by: [] }, 'group_by'],
      [{ group_by: [{ key: 'mcp_server' }] }, 'group_by[0].key'],
      [{ type: 'cost' }, 'type'],
      [{ unit: 'rps' }, 'unit'],
      [{ value: -1 }, 'value'],
      [{ target: 'agents' }, 'target'],
      [{ workspace_id: undefined }, 'workspace_id'],
      [{ organisation_id: '00000000-0000-4000-8000-000000000000' }, 'organisation_id'],
    ];
    for (const [patch, param] of cases) {
      const r = await call('POST', '/v2/policies/rate-limits', { ...RATE, workspace_id: stack.workspaceId, ...patch });
      expect([r.status, r.body.error?.param], JSON.stringify(patch)).toEqual([400, param]);
      expect(r.body.error.type).toBe('invalid_request_error');
    }
    const mcpOk = await call('POST', '/v2/policies/rate-limits', { ...RATE, target: 'mcp_tools', group_by: [{ key: 'mcp_server' }], workspace_id: stack.workspaceId });
    expect(mcpOk.status).toBe(200);
    const upd = await call('PUT', `/v2/policies/rate-limits/${mcpOk.body.id}`, { conditions: [{ key: 'model', value: 'x' }] });
    expect([upd.status, upd.body.error.param]).toEqual([400, 'conditions[0].key']);
    await call('DELETE', `/v2/policies/rate-limits/${mcpOk.body.id}`);
    expect([await count('select count(*) n from rate_limit_policy'), await count('select count(*) n from audit_event')]).toEqual([before[0]! + 1, before[1]! + 2]);
  });

  it('workspace keys act in their own workspace only', async () => {
    const mine = await call('POST', '/v2/policies/rate-limits', RATE, wsKey);
    expect(mine.status).toBe(200);
    expect((await sql('select workspace_id from rate_limit_policy where id = ?', [mine.body.id]))[0].workspace_id).toBe(stack.workspaceId);
    const other = await call('POST', '/v2/policies/rate-limits', { ...RATE, workspace_id: otherWs.id });
    expect(other.status).toBe(200);

    const denied = await call('POST', '/v2/policies/rate-limits', { ...RATE, workspace_id: otherWs.slug }, wsKey);
    expect([denied.status, denied.body.error.code]).toEqual([403, 'other_workspace']);
    expect((await call('GET', `/v2/policies/rate-limits/${other.body.id}`, undefined, wsKey)).status).toBe(404);
    expect((await call('PUT', `/v2/policies/rate-limits/${other.body.id}`, { value: 1 }, wsKey)).status).toBe(403);
    expect((await call('DELETE', `/v2/policies/rate-limits/${other.body.id}`, undefined, wsKey)).status).toBe(403);
    const listed = await call('GET', '/v2/policies/rate-limits', undefined, wsKey);
    expect(listed.body.data.map((p: any) => p.id)).toContain(mine.body.id);
    expect(listed.body.data.every((p: any) => p.workspace_id === stack.workspaceId)).toBe(true);
    expect((await call('GET', `/v2/policies/rate-limits?workspace_id=${otherWs.id}`, undefined, wsKey)).status).toBe(404);

    const ro = await call('POST', '/v2/policies/rate-limits', RATE, readOnlyKey);
    expect([ro.status, ro.body.error.code]).toEqual([403, 'missing_scope']);
    expect((await call('GET', `/v2/policies/rate-limits/${mine.body.id}`, undefined, readOnlyKey)).status).toBe(200);
    expect((await call('GET', '/v2/policies/rate-limits', undefined, null)).status).toBe(401);
    for (const id of [mine.body.id, other.body.id]) await call('DELETE', `/v2/policies/rate-limits/${id}`);
  });
});

describe('usage-limit policies over REST', () => {
  it('creates with a reset calendar, gets with usage, updates, resets a value key, archives', async () => {
    const created = await call('POST', '/v1/policies/usage-limits', { ...USAGE, workspace_id: stack.workspaceId });
    expect(created).toEqual({ status: 200, body: { id: expect.stringMatching(UUID_RE), object: 'policy_usage_limits' } });
    const id = created.body.id;
    const got = await call('GET', `/v1/policies/usage-limits/${id}`);
    const now = new Date();
    const firstOfNextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
    expect(got.body).toEqual({
      id,
      name: USAGE.name,
      conditions: USAGE.conditions,
      group_by: USAGE.group_by,
      type: 'cost',
      credit_limit: 50,
      alert_threshold: 40,
      periodic_reset: 'monthly',
      periodic_reset_days: null,
      next_usage_reset_at: firstOfNextMonth,
      last_reset_at: null,
      status: 'active',
      workspace_id: stack.workspaceId,
      organisation_id: stack.organisationId,
      created_at: ISO,
      last_updated_at: ISO,
      object: 'policy_usage_limits',
    });
    expect((await call('GET', '/v1/policies/usage-limits')).body).toMatchObject({ object: 'list', total: 1, data: [expect.objectContaining({ id })] });
    expect((await call('GET', '/v1/policies/usage-limits?type=tokens')).body.total).toBe(0);

    // Usage accrues per value key (from usage reports, issue 8); the credit limit exhausts a key.
    await accruePolicyUsage(stack.db.orm.em.fork(), id, 'metadata._user:alice', 12.5);
    await accruePolicyUsage(stack.db.orm.em.fork(), id, 'metadata._user:alice', 40);
    await accruePolicyUsage(stack.db.orm.em.fork(), id, 'metadata._user:bob', 3);
    const withUsage = await call('GET', `/v1/policies/usage-limits/${id}?include_usage=true`);
    expect(withUsage.body.value_key_usage_map).toEqual({
      'metadata._user:alice': { current_usage: 52.5, status: 'exhausted', is_threshold_alerts_sent: false, is_exhausted_alerts_sent: false },
      'metadata._user:bob': { current_usage: 3, status: 'active', is_threshold_alerts_sent: false, is_exhausted_alerts_sent: false },
    });
    const ents = await call('GET', `/v1/policies/usage-limits/${id}/entities`);
    expect(ents.body).toEqual({
      object: 'list',
      total: 2,
      data: [
        { id: expect.stringMatching(UUID_RE), value_key: 'metadata._user:alice', current_usage: 52.5 },
        { id: expect.stringMatching(UUID_RE), value_key: 'metadata._user:bob', current_usage: 3 },
      ],
    });
    expect((await call('GET', `/v1/policies/usage-limits/${id}/entities?status=exhausted`)).body.data.map((e: any) => e.value_key)).toEqual(['metadata._user:alice']);
    expect((await call('GET', `/v1/policies/usage-limits/${id}/entities?search=bo`)).body.data.map((e: any) => e.value_key)).toEqual(['metadata._user:bob']);
    expect((await call('GET', `/v1/policies/usage-limits/${id}/entities?page_size=101`)).body.error.param).toBe('page_size');

    const versionBefore = (await policySet()).version;
    const alice = ents.body.data[0].id;
    expect(await call('PUT', `/v1/policies/usage-limits/${id}/entities/${alice}/reset`)).toEqual({ status: 200, body: {} });
    expect((await call('GET', `/v1/policies/usage-limits/${id}/entities?search=alice`)).body.data[0].current_usage).toBe(0);
    const afterReset = await policySet();
    expect(afterReset.version).toBeGreaterThan(versionBefore);
    const usageInSet = (afterReset.payload.usage_limits as any[]).find((p) => p.id === id);
    expect(Object.keys(usageInSet.value_key_resets)).toEqual(['metadata._user:alice']);
    // Accrual alone does not disturb workers.
    await accruePolicyUsage(stack.db.orm.em.fork(), id, 'metadata._user:bob', 1);
    expect((await policySet()).version).toBe(afterReset.version);

    // Update: limits, calendar, conditions, and a reset by value key.
    const upd = await call('PUT', `/v1/policies/usage-limits/${id}`, {
      credit_limit: 100,
      alert_threshold: null,
      periodic_reset_days: 10,
      conditions: [{ key: 'workspace_id', value: stack.workspaceId }],
      reset_usage_for_value: 'metadata._user:bob',
    });
    expect(upd).toEqual({ status: 200, body: {} });
    const after = (await call('GET', `/v1/policies/usage-limits/${id}?include_usage=true`)).body;
    expect(after).toMatchObject({ credit_limit: 100, alert_threshold: null, periodic_reset: null, periodic_reset_days: 10, conditions: [{ key: 'workspace_id', value: stack.workspaceId }] });
    expect(Date.parse(after.next_usage_reset_at) - Date.now()).toBeGreaterThan(9 * 86_400_000);
    expect(after.value_key_usage_map['metadata._user:bob'].current_usage).toBe(0);
    expect(await call('PUT', `/v1/policies/usage-limits/${id}`, { periodic_reset: null, periodic_reset_days: null })).toEqual({ status: 200, body: {} });
    expect((await call('GET', `/v1/policies/usage-limits/${id}`)).body).toMatchObject({ periodic_reset: null, periodic_reset_days: null, next_usage_reset_at: null });

    expect(await call('DELETE', `/v2/policies/usage-limits/${id}`)).toEqual({ status: 200, body: {} });
    expect((await call('GET', `/v1/policies/usage-limits/${id}`)).status).toBe(404);
    expect((await sql('select status from usage_limit_policy where id = ?', [id]))[0].status).toBe('archived');
    expect((await call('GET', '/v1/policies/usage-limits?status=archived')).body.data.map((p: any) => p.id)).toEqual([id]);
  });

  it('rolls the period over once next_usage_reset_at has passed', async () => {
    const created = await call('POST', '/v2/policies/usage-limits', { ...USAGE, type: 'tokens', credit_limit: 1000, alert_threshold: null, periodic_reset: 'weekly', workspace_id: stack.workspaceId });
    const id = created.body.id;
    await accruePolicyUsage(stack.db.orm.em.fork(), id, 'metadata._user:carol', 1000);
    expect((await call('GET', `/v2/policies/usage-limits/${id}/entities?status=exhausted`)).body.total).toBe(1);
    // Two and a half weeks ago the period should have ended.
    await sql(`update usage_limit_policy set next_usage_reset_at = now() - interval '17 days' where id = ?`, [id]);
    const got = (await call('GET', `/v2/policies/usage-limits/${id}?include_usage=true`)).body;
    expect(got.value_key_usage_map['metadata._user:carol']).toMatchObject({ current_usage: 0, status: 'active' });
    expect(Date.parse(got.last_reset_at)).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(got.next_usage_reset_at)).toBeGreaterThan(Date.now());
    expect(new Date(got.next_usage_reset_at).getUTCDay()).toBe(1);
    await call('DELETE', `/v2/policies/usage-limits/${id}`);
  });

  it('refuses bad limits, naming the field', async () => {
    const before = await count('select count(*) n from usage_limit_policy');
    const cases: [Record<string, unknown>, string][] = [
      [{ alert_threshold: 50 }, 'alert_threshold'],
      [{ type: 'dollars' }, 'type'],
      [{ credit_limit: -1 }, 'credit_limit'],
      [{ periodic_reset: 'daily' }, 'periodic_reset'],
      [{ periodic_reset_days: 10 }, 'periodic_reset_days'],
      [{ periodic_reset: null, periodic_reset_days: 400 }, 'periodic_reset_days'],
      [{ conditions: [{ key: 'mcp_server', value: 'x' }] }, 'conditions[0].key'],
      [{ group_by: [{ key: 'metadata.' }] }, 'group_by[0].key'],
    ];
    for (const [patch, param] of cases) {
      const r = await call('POST', '/v2/policies/usage-limits', { ...USAGE, workspace_id: stack.workspaceId, ...patch });
      expect([r.status, r.body.error?.param], JSON.stringify(patch)).toEqual([400, param]);
    }
    expect(await count('select count(*) n from usage_limit_policy')).toBe(before);
    const ok = await call('POST', '/v2/policies/usage-limits', { ...USAGE, type: 'requests', workspace_id: stack.workspaceId });
    expect(ok.status).toBe(200);
    const lower = await call('PUT', `/v2/policies/usage-limits/${ok.body.id}`, { credit_limit: 30 });
    expect([lower.status, lower.body.error.param]).toEqual([400, 'alert_threshold']);
    expect((await call('GET', `/v2/policies/usage-limits/${ok.body.id}`)).body.credit_limit).toBe(50);
    await call('DELETE', `/v2/policies/usage-limits/${ok.body.id}`);
  });
});

describe('policies over GraphQL', () => {
  it('runs the same operations and errors', async () => {
    const c = await gql(
      `mutation($input: CreateRateLimitPolicyInput!) { createRateLimitPolicy(input: $input) { __typename ... on CreatedPolicy { id object } ${ERR} } }`,
      { input: { ...RATE, type: 'tokens', unit: 'rpd', value: 1e6, workspace_id: stack.workspaceId } },
    );
    const id = c.body.data.createRateLimitPolicy.id;
    expect(c.body.data.createRateLimitPolicy).toMatchObject({ __typename: 'CreatedPolicy', object: 'policy_rate_limits' });
    const q = await gql(`query($id: ID!) { rateLimitPolicy(id: $id) { id type unit value target conditions } rateLimitPolicies(target: "llm") { total data { id } } }`, { id });
    expect(q.body.data.rateLimitPolicy).toEqual({ id, type: 'tokens', unit: 'rpd', value: 1e6, target: 'llm', conditions: RATE.conditions });
    expect(q.body.data.rateLimitPolicies.data.map((p: any) => p.id)).toContain(id);
    const bad = await gql(`mutation($id: ID!) { updateRateLimitPolicy(id: $id, input: { conditions: [{ key: "nope", value: "x" }] }) { __typename ${ERR} } }`, { id });
    expect(bad.body.data.updateRateLimitPolicy).toMatchObject({ __typename: 'GatewayError', status: 400, param: 'conditions[0].key' });
    const del = await gql(`mutation($id: ID!) { deleteRateLimitPolicy(id: $id) { __typename ... on ChangedPolicy { id } } }`, { id });
    expect(del.body.data.deleteRateLimitPolicy).toEqual({ __typename: 'ChangedPolicy', id });

    const u = await gql(
      `mutation($input: CreateUsageLimitPolicyInput!) { createUsageLimitPolicy(input: $input) { __typename ... on CreatedPolicy { id object } ${ERR} } }`,
      { input: { ...USAGE, workspace_id: 'ws-default' } },
    );
    const uid = u.body.data.createUsageLimitPolicy.id;
    const g = await gql(`query($id: ID!) { usageLimitPolicy(id: $id, include_usage: true) { credit_limit periodic_reset value_key_usage_map } usageLimitPolicyEntities(id: $id) { total } }`, { id: uid });
    expect(g.body.data).toEqual({ usageLimitPolicy: { credit_limit: 50, periodic_reset: 'monthly', value_key_usage_map: {} }, usageLimitPolicyEntities: { total: 0 } });
    const badU = await gql(`mutation($id: ID!) { updateUsageLimitPolicy(id: $id, input: { alert_threshold: 60 }) { __typename ${ERR} } }`, { id: uid });
    expect(badU.body.data.updateUsageLimitPolicy).toMatchObject({ __typename: 'GatewayError', param: 'alert_threshold' });
    await gql(`mutation($id: ID!) { deleteUsageLimitPolicy(id: $id) { __typename } }`, { id: uid });
  });
});

describe('policy_set worker resolver', () => {
  it('hands workers every active policy of the organisation, and each write moves its version', async () => {
    const start = await policySet();
    const r = await call('POST', '/v2/policies/rate-limits', { ...RATE, workspace_id: stack.workspaceId });
    const u = await call('POST', '/v2/policies/usage-limits', { ...USAGE, workspace_id: otherWs.id });
    const a = await policySet();
    expect(a.version).toBeGreaterThan(start.version);
    expect(a.payload.organisation_id).toBe(stack.organisationId);
    expect(a.payload.rate_limits).toContainEqual({ id: r.body.id, workspace_id: stack.workspaceId, name: RATE.name, target: 'llm', conditions: RATE.conditions, group_by: RATE.group_by, type: 'requests', unit: 'rpm', value: 100 });
    expect(a.payload.usage_limits).toContainEqual(expect.objectContaining({ id: u.body.id, workspace_id: otherWs.id, credit_limit: 50, alert_threshold: 40, periodic_reset: 'monthly', value_key_resets: {} }));

    await call('PUT', `/v2/policies/rate-limits/${r.body.id}`, { value: 7 });
    const b = await policySet();
    expect(b.version).toBeGreaterThan(a.version);
    expect((b.payload.rate_limits as any[]).find((p) => p.id === r.body.id).value).toBe(7);

    await call('DELETE', `/v2/policies/rate-limits/${r.body.id}`);
    await call('DELETE', `/v2/policies/usage-limits/${u.body.id}`);
    const c = await policySet();
    expect(c.version).toBeGreaterThan(b.version);
    // Archived policies are not enforced.
    expect((c.payload.rate_limits as any[]).map((p) => p.id)).not.toContain(r.body.id);
    expect((c.payload.usage_limits as any[]).map((p) => p.id)).not.toContain(u.body.id);
    const changes = await sql(`select resource_key, action from resource_change where resource_type = 'policy_set' and resource_id = ?`, [r.body.id]);
    expect(changes).toEqual([
      { resource_key: stack.organisationId, action: 'upsert' },
      { resource_key: stack.organisationId, action: 'upsert' },
      { resource_key: stack.organisationId, action: 'upsert' },
    ]);
    expect(await policySetResolver.resolve(stack.db.orm.em.fork(), '00000000-0000-4000-8000-000000000000')).toBeNull();
    expect(await policySetResolver.resolve(stack.db.orm.em.fork(), 'not-a-uuid')).toBeNull();
  });
});
