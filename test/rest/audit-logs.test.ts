import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startStack, type Stack } from '../support/stack.ts';

let stack: Stack;
let base: string;
const from = new Date(Date.now() - 60_000).toISOString();
const to = () => new Date(Date.now() + 60_000).toISOString();

async function get(query: Record<string, string | number>, key = stack.adminKey) {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  const res = await fetch(`${base}/v1/audit-logs?${qs}`, { headers: { 'x-gateway-api-key': key } });
  return { status: res.status, body: (await res.json()) as any };
}
const window = () => ({ start_time: from, end_time: to(), organisation_id: stack.organisationId });

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  base = stack.controlPlane.httpUrl;
  await stack.createKey({ name: 'one', workspace_id: 'ws-default', scopes: ['completions.write'] });
  await stack.createKey({ name: 'two', workspace_id: 'ws-default', scopes: ['completions.write'] });
  await stack.createKey({ name: 'org', scopes: ['workspaces.list'] });
});
afterAll(async () => stack?.close());

describe('GET /v1/audit-logs', () => {
  it('lists the trail with who, what, target, when, where and the redacted request', async () => {
    const r = await get({ ...window(), action: 'api_key.create' });
    expect(r.status).toBe(200);
    expect(r.body.object).toBe('list');
    expect(r.body.total).toBe(3);
    const [admin] = (await stack.db.orm.em.getConnection().execute("select id from api_key where creation_mode = 'bootstrap'")) as { id: string }[];
    const rec = r.body.records.find((x: any) => JSON.parse(x.request_body).name === 'one');
    expect(rec).toMatchObject({
      method: 'POST', uri: '/v2/api-keys/service', user_type: 'api_key', user_id: admin!.id, organisation_id: stack.organisationId,
      workspace_id: stack.workspaceId, response_status_code: 200, resource_type: 'api_key', action: 'api_key.create',
    });
    expect(rec.client_ip).toMatch(/127\.0\.0\.1/);
    expect(Date.parse(rec.timestamp)).toBeGreaterThan(Date.parse(from));
    expect(typeof rec.request_id).toBe('string');
    expect(JSON.parse(rec.request_headers)).toHaveProperty('user-agent');
  });

  it('filters by resource type, user type, method and workspace, and pages newest first', async () => {
    const boot = await get({ ...window(), resource_type: 'organisation' });
    expect(boot.body.records.map((x: any) => [x.action, x.user_type])).toEqual([['organisation.bootstrap', 'system']]);
    expect((await get({ ...window(), user_type: 'api_key' })).body.total).toBe(3);
    expect((await get({ ...window(), user_type: 'system' })).body.total).toBe(1);
    expect((await get({ ...window(), user_type: 'user' })).body.total).toBe(0);
    expect((await get({ ...window(), method: 'POST' })).body.total).toBe(3);
    expect((await get({ ...window(), workspace_id: stack.workspaceId })).body.total).toBe(2);
    const p0 = await get({ ...window(), action: 'api_key.create', page_size: 2, current_page: 0 });
    const p1 = await get({ ...window(), action: 'api_key.create', page_size: 2, current_page: 1 });
    expect(p0.body.records).toHaveLength(2);
    expect(p1.body.records).toHaveLength(1);
    expect(p0.body.total).toBe(3);
    expect(JSON.parse(p0.body.records[0].request_body).name).toBe('org'); // newest first
    const past = await get({ start_time: '2020-01-01T00:00:00Z', end_time: '2020-01-02T00:00:00Z', organisation_id: stack.organisationId });
    expect(past.body.total).toBe(0);
  });

  it.each([
    [{ end_time: 'x', organisation_id: 'y' }, 'start_time'],
    [{ start_time: 'yesterday', end_time: '2030-01-01T00:00:00Z', organisation_id: '00000000-0000-4000-8000-000000000000' }, 'start_time'],
    [{ start_time: '2030-01-02T00:00:00Z', end_time: '2030-01-01T00:00:00Z', organisation_id: '00000000-0000-4000-8000-000000000000' }, 'end_time'],
    [{ start_time: '2030-01-01T00:00:00Z', end_time: '2030-01-02T00:00:00Z', organisation_id: 'nope' }, 'organisation_id'],
    [{ start_time: '2030-01-01T00:00:00Z', end_time: '2030-01-02T00:00:00Z', organisation_id: '00000000-0000-4000-8000-000000000000', page_size: 101 }, 'page_size'],
    [{ start_time: '2030-01-01T00:00:00Z', end_time: '2030-01-02T00:00:00Z', organisation_id: '00000000-0000-4000-8000-000000000000', method: 'GET' }, 'method'],
    [{ start_time: '2030-01-01T00:00:00Z', end_time: '2030-01-02T00:00:00Z', organisation_id: '00000000-0000-4000-8000-000000000000', bogus: 1 }, 'bogus'],
  ])('answers 400 naming the parameter for %j', async (q, param) => {
    const r = await get(q as Record<string, string | number>);
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe(param);
  });

  it("refuses another organisation's trail and keys without the permission", async () => {
    expect((await get({ ...window(), organisation_id: '00000000-0000-4000-8000-000000000000' })).status).toBe(403);
    const ws = await stack.createKey({ name: 'ws', workspace_id: 'ws-default', scopes: ['completions.write'] });
    const r = await get(window(), ws.key);
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('missing_scope');
  });

  it('answers the same through GraphQL', async () => {
    const res = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': stack.adminKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'query($f: AuditLogFilter!) { auditLogs(filter: $f) { total records { action resource_type } } }',
        variables: { f: { ...window(), action: 'api_key.create' } },
      }),
    });
    const body = (await res.json()) as any;
    const rest = await get({ ...window(), action: 'api_key.create' });
    expect(body.data.auditLogs.total).toBe(rest.body.total);
    expect(body.data.auditLogs.records[0]).toEqual({ action: 'api_key.create', resource_type: 'api_key' });
  });
});

describe('the audit log is append-only', () => {
  it('has no route, mutation or statement that edits or removes a record', async () => {
    expect((await fetch(`${base}/v1/audit-logs`, { method: 'DELETE', headers: { 'x-gateway-api-key': stack.adminKey } })).status).toBe(405);
    const schema = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': stack.adminKey, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __schema { mutationType { fields { name } } } }' }),
    });
    const names = ((await schema.json()) as any).data.__schema.mutationType.fields.map((f: any) => f.name.toLowerCase());
    expect(names.filter((n: string) => n.includes('audit'))).toEqual([]);
    const sql = stack.db.orm.em.getConnection();
    await expect(sql.execute("update audit_event set action = 'x'")).rejects.toThrow(/append-only/);
    await expect(sql.execute('delete from audit_event')).rejects.toThrow(/append-only/);
    const [n] = (await sql.execute('select count(*)::int n from audit_event')) as { n: number }[];
    expect(n!.n).toBeGreaterThan(0);
  });
});
