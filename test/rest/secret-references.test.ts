import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { loadSecretReferenceForWorkspace } from '../../src/services/secret-references/find-secret-reference.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { restCall } from '../support/api.ts';

let stack: Stack;
let base: string;
let otherWs: { id: string; slug: string };
let wsKey: string;

const sql = <T = any>(q: string, params: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, params);
const count = async (q: string, params: unknown[] = []) => Number((await sql<{ n: string }>(q, params))[0]!.n);

const call = restCall(() => base, () => stack.adminKey);

async function gql(query: string, variables: Record<string, unknown> = {}, key: string | null = stack.adminKey) {
  const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...(key ? { 'x-gateway-api-key': key } : {}) }, body: JSON.stringify({ query, variables }) });
  return (await res.json()) as any;
}

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const AWS = {
  name: 'Prod OpenAI key',
  manager_type: 'aws_sm',
  auth_config: { aws_auth_type: 'accessKey', aws_access_key_id: 'AKIAIOSFODNN7EXAMPLE', aws_secret_access_key: AWS_SECRET, aws_region: 'us-east-1' },
  secret_path: 'prod/openai',
  secret_key: 'api_key',
  description: 'The production key',
  tags: { env: 'prod', team: 'ml' },
};

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  base = stack.controlPlane.httpUrl;
  const ws = await call('POST', '/v1/admin/workspaces', { name: 'Sec Other' });
  otherWs = ws.body;
  wsKey = (await stack.createKey({ name: 'ws', workspace_id: 'ws-default', scopes: ['configs.read'] })).key;
});
afterAll(async () => stack?.close());

describe('secret references over REST', () => {
  it('creates, gets masked, lists with filters, updates (auth merged), deletes', async () => {
    const created = await call('POST', '/v1/secret-references', AWS);
    expect(created).toEqual({ status: 200, body: { id: expect.stringMatching(UUID_RE), slug: 'prod-openai-key', object: 'secret-reference' } });
    const { id } = created.body;
    // Stored sealed: the secret never appears in the row or the audit log.
    const [row] = await sql('select * from secret_reference where id = ?', [id]);
    expect(JSON.stringify(row)).not.toContain(AWS_SECRET);
    const audit = await sql('select request_details from audit_event where target_id = ?', [id]);
    expect(JSON.stringify(audit)).not.toContain(AWS_SECRET);
    expect(audit[0].request_details.auth_config_fields).toEqual(['aws_access_key_id', 'aws_auth_type', 'aws_region', 'aws_secret_access_key']);

    const detail = {
      id,
      organisation_id: stack.organisationId,
      name: AWS.name,
      slug: 'prod-openai-key',
      description: 'The production key',
      manager_type: 'aws_sm',
      secret_path: 'prod/openai',
      secret_key: 'api_key',
      allow_all_workspaces: true,
      allowed_workspaces: [],
      tags: AWS.tags,
      status: 'ACTIVE',
      created_by: expect.any(String),
      created_at: ISO,
      last_updated_at: ISO,
      auth_config: { aws_auth_type: 'accessKey', aws_access_key_id: 'AKIA********MPLE', aws_secret_access_key: 'wJal********EKEY', aws_region: 'us-east-1' },
      object: 'secret-reference',
    };
    for (const ref of [id, 'prod-openai-key']) expect(await call('GET', `/v2/secret-references/${ref}`)).toEqual({ status: 200, body: detail });

    const vault = await call('POST', '/v1/secret-references', {
      name: 'Vault',
      slug: 'vault_1',
      manager_type: 'hashicorp_vault',
      auth_config: { vault_auth_type: 'token', vault_addr: 'https://vault.internal:8200', vault_token: 'hvs.short' },
      secret_path: 'kv/data/anthropic',
      allowed_workspaces: ['ws-default', otherWs.id],
    });
    expect(vault.status).toBe(200);
    expect((await call('GET', `/v1/secret-references/vault_1`)).body).toMatchObject({ allow_all_workspaces: false, allowed_workspaces: [stack.workspaceId, otherWs.id], auth_config: { vault_token: '********' } });

    const item = { id, name: AWS.name, slug: 'prod-openai-key', manager_type: 'aws_sm', status: 'ACTIVE', created_at: ISO, last_updated_at: ISO, object: 'secret-reference' };
    const list = await call('GET', '/v1/secret-references');
    expect(list.body).toEqual({ object: 'list', total: 2, data: [item, expect.objectContaining({ slug: 'vault_1' })] });
    expect((await call('GET', '/v1/secret-references?manager_type=hashicorp_vault')).body.data.map((r: any) => r.slug)).toEqual(['vault_1']);
    expect((await call('GET', `/v1/secret-references?tags=${encodeURIComponent('{"env":"prod"}')}`)).body.data.map((r: any) => r.slug)).toEqual(['prod-openai-key']);
    expect((await call('GET', `/v1/secret-references?tags=${encodeURIComponent('{"env":"dev"}')}`)).body.total).toBe(0);
    expect((await call('GET', '/v1/secret-references?search=VAULT')).body.data.map((r: any) => r.slug)).toEqual(['vault_1']);
    expect((await call('GET', '/v1/secret-references?page_size=1&current_page=1')).body).toMatchObject({ total: 2, data: [{ slug: 'vault_1' }] });
    expect((await call('GET', '/v1/secret-references?page_size=101')).body.error.param).toBe('page_size');
    expect((await call('GET', '/v1/secret-references?tags=nope')).body.error.param).toBe('tags');

    // auth_config merges into the stored one and is checked against the manager type.
    expect(await call('PUT', `/v1/secret-references/${id}`, { auth_config: { aws_region: 'eu-west-1' }, name: 'Renamed', allowed_workspaces: [otherWs.slug] })).toEqual({ status: 200, body: {} });
    const after = (await call('GET', `/v1/secret-references/${id}`)).body;
    expect(after).toMatchObject({ name: 'Renamed', allow_all_workspaces: false, allowed_workspaces: [otherWs.id], auth_config: { aws_region: 'eu-west-1', aws_secret_access_key: 'wJal********EKEY' } });
    // Switching the auth variant replaces auth_config.
    expect((await call('PUT', `/v1/secret-references/${id}`, { auth_config: { aws_auth_type: 'serviceRole' }, allow_all_workspaces: true })).status).toBe(200);
    expect((await call('GET', `/v1/secret-references/${id}`)).body).toMatchObject({ auth_config: { aws_auth_type: 'serviceRole' }, allow_all_workspaces: true, allowed_workspaces: [] });
    const badMerge = await call('PUT', `/v1/secret-references/${id}`, { auth_config: { vault_token: 'x' } });
    expect([badMerge.status, badMerge.body.error.param]).toEqual([400, 'auth_config.vault_token']);

    expect(await call('DELETE', '/v1/secret-references/prod-openai-key')).toEqual({ status: 200, body: {} });
    expect((await call('GET', `/v1/secret-references/${id}`)).status).toBe(404);
    expect((await sql('select action from audit_event where target_id = ? order by created_at', [id])).map((a: any) => a.action)).toEqual([
      'secret_reference.create',
      'secret_reference.update',
      'secret_reference.update',
      'secret_reference.delete',
    ]);
    await call('DELETE', '/v1/secret-references/vault_1');
  });

  it('refuses bad input with 400 naming the field, writing nothing', async () => {
    await call('POST', '/v1/secret-references', { ...AWS, slug: 'taken' });
    const before = [await count('select count(*) n from secret_reference'), await count('select count(*) n from audit_event')];
    const cases: [Record<string, unknown>, string][] = [
      [{ name: '' }, 'name'],
      [{ manager_type: 'gcp_sm' }, 'manager_type'],
      [{ auth_config: { aws_auth_type: 'accessKey', aws_region: 'us-east-1' } }, 'auth_config.aws_access_key_id'],
      [{ auth_config: { aws_auth_type: 'password' } }, 'auth_config.aws_auth_type'],
      [{ manager_type: 'azure_kv', auth_config: { azure_auth_mode: 'default', azure_vault_url: 'not a url' } }, 'auth_config.azure_vault_url'],
      [{ secret_path: 'x'.repeat(1025) }, 'secret_path'],
      [{ slug: 'bad slug' }, 'slug'],
      [{ slug: 'taken' }, 'slug'],
      [{ allow_all_workspaces: true, allowed_workspaces: ['ws-default'] }, 'allowed_workspaces'],
      [{ allowed_workspaces: ['ws-default', 'ws-nope'] }, 'allowed_workspaces[1]'],
      [{ allowed_workspaces: [] }, 'allowed_workspaces'],
      [{ manager_type: 'env', auth_config: {}, secret_path: 'not-a-name' }, 'secret_path'],
      [{ manager_type: 'file', auth_config: {}, secret_path: '../etc/passwd' }, 'secret_path'],
      [{ manager_type: 'env', auth_config: { x: 1 }, secret_path: 'SECRETREF_A' }, 'auth_config.x'],
      [{ organisation_id: '00000000-0000-4000-8000-000000000000' }, 'organisation_id'],
    ];
    for (const [patch, param] of cases) {
      const r = await call('POST', '/v1/secret-references', { ...AWS, ...patch });
      expect([r.status, r.body.error?.param], JSON.stringify(patch)).toEqual([400, param]);
    }
    expect([await count('select count(*) n from secret_reference'), await count('select count(*) n from audit_event')]).toEqual(before);
    // A second reference named the same gets its own slug.
    const again = await call('POST', '/v1/secret-references', AWS);
    expect(again.body.slug).toMatch(/^prod-openai-key(-[0-9a-f]{6})?$/);
  });

  it('needs an organisation key with the secret_references scopes', async () => {
    expect((await call('GET', '/v1/secret-references', undefined, wsKey)).status).toBe(403);
    expect((await call('POST', '/v1/secret-references', AWS, wsKey)).body.error.code).toBe('missing_scope');
    expect((await call('GET', '/v1/secret-references', undefined, null)).status).toBe(401);
  });

  it('loads a reference for a workspace only when it is shared with it', async () => {
    const r = await call('POST', '/v1/secret-references', { name: 'Env one', manager_type: 'env', auth_config: {}, secret_path: 'SECRETREF_OPENAI', allowed_workspaces: [otherWs.id] });
    const em = stack.db.orm.em.fork();
    const target = await loadSecretReferenceForWorkspace(em, stack.secretBox, { organisationId: stack.organisationId, workspaceId: otherWs.id, idOrSlug: r.body.slug, secretKey: 'k' });
    expect(target).toEqual({ manager_type: 'env', secret_path: 'SECRETREF_OPENAI', secret_key: 'k', auth_config: {} });
    await expect(loadSecretReferenceForWorkspace(em, stack.secretBox, { organisationId: stack.organisationId, workspaceId: stack.workspaceId, idOrSlug: r.body.id })).rejects.toMatchObject({
      status: 403,
      code: 'secret_reference_not_allowed',
    });
    await expect(loadSecretReferenceForWorkspace(em, stack.secretBox, { organisationId: stack.organisationId, workspaceId: otherWs.id, idOrSlug: 'nope' })).rejects.toMatchObject({ status: 404 });
  });
});

describe('secret references over GraphQL', () => {
  it('runs the same operations with the same errors', async () => {
    const c = await gql(`mutation($input: CreateSecretReferenceInput!) { createSecretReference(input: $input) { __typename ... on CreatedSecretReference { id slug object } ... on GatewayError { param status } } }`, {
      input: { ...AWS, name: 'GQL ref', slug: 'gql-ref' },
    });
    expect(c.data.createSecretReference).toMatchObject({ __typename: 'CreatedSecretReference', slug: 'gql-ref', object: 'secret-reference' });
    const g = await gql(`{ secretReference(id: "gql-ref") { slug auth_config } secretReferences(search: "gql") { total data { slug } } }`);
    expect(g.data.secretReference.auth_config.aws_secret_access_key).toBe('wJal********EKEY');
    expect(g.data.secretReferences).toEqual({ total: 1, data: [{ slug: 'gql-ref' }] });
    const bad = await gql(`mutation { updateSecretReference(id: "gql-ref", input: { auth_config: { aws_region: "" } }) { __typename ... on GatewayError { param status } } }`);
    expect(bad.data.updateSecretReference).toEqual({ __typename: 'GatewayError', param: 'auth_config.aws_region', status: 400 });
    const d = await gql(`mutation { deleteSecretReference(id: "gql-ref") { __typename } }`);
    expect(d.data.deleteSecretReference.__typename).toBe('ChangedSecretReference');
  });
});
