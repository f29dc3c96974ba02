import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startStack, type Stack } from '../support/stack.ts';
import { guardrailPolicyWorkerResolver } from '../../src/services/guardrails/worker-resolver.ts';
import { graphqlCall, restCall } from '../support/api.ts';

// Organisation default guardrails and workspace exclusions (gateway-spec, "Other control-plane operations").

let stack: Stack;
let base: string;
let wsA: { id: string; slug: string };
let wsB: { id: string; slug: string };
let orgG1: { id: string; slug: string };
let orgG2: { id: string; slug: string };
let wsGuard: { id: string; slug: string };

const sql = <T = any>(q: string, params: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, params);
const count = async (q: string, params: unknown[] = []) => Number((await sql<{ n: string }>(q, params))[0]!.n);

const call = restCall(() => base, () => stack.adminKey);

const gql = graphqlCall(() => base, () => stack.adminKey);

const ERR = '... on GatewayError { message code type param status }';
const CHECKS = [{ id: 'default.regexMatch', parameters: { rule: 'x' } }];

async function guardrail(name: string, extra: Record<string, unknown> = {}) {
  const r = await call('POST', '/v1/guardrails', { name, checks: CHECKS, actions: { deny: true }, ...extra });
  expect(r.status).toBe(200);
  return { id: r.body.id as string, slug: r.body.slug as string };
}

const excluded = async (direction: 'input' | 'output') => (await call('GET', `/v1/workspace-exclusions/${direction}-guardrails`)).body.data.map((e: any) => e.workspace_slug).sort();

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  base = stack.controlPlane.httpUrl;
  wsA = (await call('POST', '/v1/admin/workspaces', { name: 'Excl A' })).body;
  wsB = (await call('POST', '/v1/admin/workspaces', { name: 'Excl B' })).body;
  orgG1 = await guardrail('Org One');
  orgG2 = await guardrail('Org Two');
  wsGuard = await guardrail('Ws One', { workspace_id: stack.workspaceId });
});
afterAll(async () => stack?.close());

describe('organisation defaults', () => {
  it('GET answers each default guardrail id and slug; PUT replaces the given lists', async () => {
    expect(await call('GET', '/v1/admin/organisation/defaults')).toEqual({ status: 200, body: { input_guardrails: [], output_guardrails: [], object: 'organisation-defaults' } });
    const put = await call('PUT', '/v1/admin/organisation/defaults', { input_guardrails: [orgG2.slug, orgG1.id], output_guardrails: [orgG1.slug] });
    expect(put.status).toBe(200);
    const want = { input_guardrails: [orgG2, orgG1], output_guardrails: [orgG1], object: 'organisation-defaults' };
    expect(put.body).toEqual(want);
    expect((await call('GET', '/v1/admin/organisation/defaults')).body).toEqual(want);
    // Only the given list changes.
    expect((await call('PUT', '/v1/admin/organisation/defaults', { output_guardrails: [] })).body).toEqual({ ...want, output_guardrails: [] });
    const [row] = await sql('select input_guardrails, output_guardrails from organisation_guardrail_defaults where organisation_id = ?', [stack.organisationId]);
    expect(row).toEqual({ input_guardrails: [orgG2.id, orgG1.id], output_guardrails: [] });
    expect(await count("select count(*) n from audit_event where action = 'organisation_defaults.update'")).toBe(2);

    // A default guardrail cannot be deleted.
    const del = await call('DELETE', `/v1/guardrails/${orgG2.id}`);
    expect(del.status).toBe(409);
    expect(del.body.error).toMatchObject({ code: 'guardrail_in_use', message: expect.stringContaining('organisation defaults') });
  });

  it('refuses unknown, workspace and repeated guardrails naming the entry, and workspace keys', async () => {
    const before = await sql('select input_guardrails, output_guardrails from organisation_guardrail_defaults');
    const cases: [unknown, string, RegExp][] = [
      [{ input_guardrails: [orgG1.slug, 'guard_nope'] }, 'input_guardrails[1]', /unknown guardrail guard_nope/],
      [{ output_guardrails: [wsGuard.slug] }, 'output_guardrails[0]', /workspace guardrail/],
      [{ input_guardrails: [orgG1.slug, orgG1.id] }, 'input_guardrails[1]', /listed twice/],
      [{ input_guardrails: [5] }, 'input_guardrails[0]', /./],
      [{ extra: [] }, 'extra', /./],
    ];
    for (const [body, param, message] of cases) {
      const r = await call('PUT', '/v1/admin/organisation/defaults', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.param).toBe(param);
      expect(r.body.error.message).toMatch(message);
    }
    expect(await sql('select input_guardrails, output_guardrails from organisation_guardrail_defaults')).toEqual(before);

    const wsKey = (await stack.createKey({ name: 'ws', workspace_id: 'ws-default', scopes: ['guardrails.read', 'guardrails.list'] })).key;
    expect((await call('GET', '/v1/admin/organisation/defaults', undefined, wsKey)).status).toBe(403);
    expect((await call('PUT', '/v1/admin/organisation/defaults', { input_guardrails: [] }, wsKey)).status).toBe(403);
    const org = await call('POST', '/v1/api-keys/organisation/service', { name: 'settings ro', scopes: ['organisation_settings.read'] });
    expect((await call('GET', '/v1/admin/organisation/defaults', undefined, org.body.key)).status).toBe(200);
    const noUpdate = await call('PUT', '/v1/admin/organisation/defaults', { input_guardrails: [] }, org.body.key);
    expect(noUpdate.body.error).toMatchObject({ code: 'missing_scope', message: expect.stringContaining('organisation_settings.update') });
  });
});

describe('workspace exclusions', () => {
  it('PUT merges by default, replaces with override_existing; GET lists the excluded workspaces', async () => {
    expect((await call('GET', '/v1/workspace-exclusions/input-guardrails')).body).toEqual({ object: 'list', total: 0, data: [] });
    const first = await call('PUT', '/v1/workspace-exclusions/input-guardrails', { workspaces: [{ workspace_id: wsA.id }, { workspace_id: wsB.slug, excluded: true }] });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ object: 'list', total: 2 });
    expect(first.body.data[0]).toEqual({ workspace_id: wsA.id, workspace_slug: wsA.slug, workspace_name: 'Excl A', excluded: true, created_at: expect.any(String), created_by: expect.any(String) });
    expect(await excluded('input')).toEqual([wsA.slug, wsB.slug].sort());
    expect(await excluded('output')).toEqual([]);

    // Merge: an entry restores one workspace, the others stay.
    await call('PUT', '/v1/workspace-exclusions/input-guardrails', { workspaces: [{ workspace_id: wsA.slug, excluded: false }, { workspace_id: 'ws-default' }] });
    expect(await excluded('input')).toEqual(['ws-default', wsB.slug].sort());
    // Replace: the given excluded entries are the whole set.
    await call('PUT', '/v1/workspace-exclusions/input-guardrails', { workspaces: [{ workspace_id: wsA.slug }], override_existing: true });
    expect(await excluded('input')).toEqual([wsA.slug]);
    // Repeating is harmless.
    await call('PUT', '/v1/workspace-exclusions/input-guardrails', { workspaces: [{ workspace_id: wsA.slug }] });
    expect(await excluded('input')).toEqual([wsA.slug]);
    await call('PUT', '/v1/workspace-exclusions/output-guardrails', { workspaces: [{ workspace_id: wsB.id }] });
    expect(await excluded('output')).toEqual([wsB.slug]);
    expect(await excluded('input')).toEqual([wsA.slug]);
    const p = await call('GET', '/v1/workspace-exclusions/input-guardrails?page_size=1&current_page=1');
    expect(p.body).toEqual({ object: 'list', total: 1, data: [] });

    const audit = await sql("select action, request_details from audit_event where action like 'workspace_exclusions.%' order by created_at");
    expect(audit.map((a: any) => a.action)).toEqual([
      'workspace_exclusions.input_guardrails.update',
      'workspace_exclusions.input_guardrails.update',
      'workspace_exclusions.input_guardrails.update',
      'workspace_exclusions.input_guardrails.update',
      'workspace_exclusions.output_guardrails.update',
    ]);
    expect(audit[2].request_details).toMatchObject({ override_existing: true, excluded: [wsA.slug], restored: ['ws-default', wsB.slug].sort() });
  });

  it('refuses unknown or repeated workspaces and keys without organisation_exclusions scopes', async () => {
    const before = await count('select count(*) n from guardrail_workspace_exclusion');
    const unknown = await call('PUT', '/v1/workspace-exclusions/output-guardrails', { workspaces: [{ workspace_id: wsA.id }, { workspace_id: 'ws-nope' }] });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.param).toBe('workspaces[1].workspace_id');
    const twice = await call('PUT', '/v1/workspace-exclusions/output-guardrails', { workspaces: [{ workspace_id: wsA.id }, { workspace_id: wsA.slug }] });
    expect(twice.body.error).toMatchObject({ param: 'workspaces[1].workspace_id', message: expect.stringContaining('listed twice') });
    expect((await call('PUT', '/v1/workspace-exclusions/output-guardrails', { workspaces: [{ workspace_id: wsA.id, excluded: 'yes' }] })).body.error.param).toBe('workspaces[0].excluded');
    expect((await call('PUT', '/v1/workspace-exclusions/output-guardrails', {})).body.error.param).toBe('workspaces');
    expect(await count('select count(*) n from guardrail_workspace_exclusion')).toBe(before);

    const list = await call('POST', '/v1/api-keys/organisation/service', { name: 'excl list', scopes: ['organisation_exclusions.list'] });
    expect((await call('GET', '/v1/workspace-exclusions/output-guardrails', undefined, list.body.key)).status).toBe(200);
    const denied = await call('PUT', '/v1/workspace-exclusions/output-guardrails', { workspaces: [] }, list.body.key);
    expect(denied.body.error).toMatchObject({ code: 'missing_scope', message: expect.stringContaining('organisation_exclusions.update') });
    const wsKey = (await stack.createKey({ name: 'ws', workspace_id: 'ws-default', scopes: ['guardrails.list'] })).key;
    expect((await call('GET', '/v1/workspace-exclusions/input-guardrails', undefined, wsKey)).status).toBe(403);
  });

  it('tells workers the defaults each workspace applies (guardrail_policy)', async () => {
    await call('PUT', '/v1/admin/organisation/defaults', { input_guardrails: [orgG1.id], output_guardrails: [orgG2.slug] });
    await call('PUT', '/v1/workspace-exclusions/input-guardrails', { workspaces: [{ workspace_id: wsA.id }], override_existing: true });
    await call('PUT', '/v1/workspace-exclusions/output-guardrails', { workspaces: [], override_existing: true });
    const em = stack.db.orm.em.fork();
    const a = await guardrailPolicyWorkerResolver.resolve(em as any, wsA.id);
    expect(a!.payload).toEqual({ workspace_id: wsA.id, organisation_id: stack.organisationId, input_guardrails: [], output_guardrails: [orgG2.id], excluded: { input: true, output: false } });
    const b = await guardrailPolicyWorkerResolver.resolve(em as any, wsB.id);
    expect(b!.payload).toMatchObject({ input_guardrails: [orgG1.id], output_guardrails: [orgG2.id], excluded: { input: false, output: false } });
    expect(await guardrailPolicyWorkerResolver.resolve(em as any, '00000000-0000-4000-8000-000000000000')).toBeNull();

    // A defaults change touches every workspace's key; an exclusion its workspace's.
    const latest = async (ws: string) => Number((await sql('select max(version)::text v from resource_change where resource_type = ? and resource_key = ?', ['guardrail_policy', ws]))[0].v);
    const [a0, b0] = [await latest(wsA.id), await latest(wsB.id)];
    expect(a!.version).toBe(a0);
    await call('PUT', '/v1/workspace-exclusions/input-guardrails', { workspaces: [{ workspace_id: wsB.id }] });
    expect(await latest(wsB.id)).toBeGreaterThan(b0);
    expect(await latest(wsA.id)).toBe(a0);
    await call('PUT', '/v1/admin/organisation/defaults', { input_guardrails: [] });
    expect(await latest(wsA.id)).toBeGreaterThan(a0);
  });
});

describe('over GraphQL', () => {
  it('reads and updates defaults and exclusions', async () => {
    const upd = await gql(
      `mutation($input: OrganisationDefaultsInput!) { updateOrganisationDefaults(input: $input) { __typename ... on OrganisationDefaults { input_guardrails { id slug } output_guardrails { id slug } } ${ERR} } }`,
      { input: { input_guardrails: [orgG1.slug] } },
    );
    expect(upd.body.data.updateOrganisationDefaults).toMatchObject({ __typename: 'OrganisationDefaults', input_guardrails: [orgG1] });
    const bad = await gql(`mutation($input: OrganisationDefaultsInput!) { updateOrganisationDefaults(input: $input) { __typename ${ERR} } }`, { input: { output_guardrails: ['guard_missing'] } });
    expect(bad.body.data.updateOrganisationDefaults).toMatchObject({ __typename: 'GatewayError', status: 400, param: 'output_guardrails[0]' });
    expect((await gql('{ organisationDefaults { input_guardrails { slug } } }')).body.data.organisationDefaults.input_guardrails).toEqual([{ slug: orgG1.slug }]);

    const ex = await gql(
      `mutation($input: WorkspaceExclusionsInput!) { updateWorkspaceExclusions(direction: output, input: $input) { __typename ... on WorkspaceExclusionPage { total data { workspace_slug } } ${ERR} } }`,
      { input: { workspaces: [{ workspace_id: wsA.slug }], override_existing: true } },
    );
    expect(ex.body.data.updateWorkspaceExclusions).toEqual({ __typename: 'WorkspaceExclusionPage', total: 1, data: [{ workspace_slug: wsA.slug }] });
    expect((await gql('{ workspaceExclusions(direction: output) { total } }')).body.data.workspaceExclusions.total).toBe(1);
  });
});
