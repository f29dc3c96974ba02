import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { Logger } from '../../src/domain/logger.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { restCallWithText } from '../support/api.ts';

let stack: Stack;
let base: string;
let otherWs: { id: string; slug: string };
const logLines: string[] = [];
const capture = (level: string) => (msg: string, fields?: Record<string, unknown>) => logLines.push(JSON.stringify({ level, msg, ...fields }));
const logger: Logger = { debug: capture('debug'), info: capture('info'), warn: capture('warn'), error: capture('error') };

const sql = <T = any>(q: string, params: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, params);

const call = restCallWithText(() => base, () => stack.adminKey);

async function gql(query: string, variables: Record<string, unknown> = {}, key: string | null = stack.adminKey) {
  const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...(key ? { 'x-gateway-api-key': key } : {}) }, body: JSON.stringify({ query, variables }) });
  return { status: res.status, body: (await res.json()) as any };
}

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const OPENAI_KEY = 'sk-live-integration-secret-0123456789';
const AWS_SECRET = 'aws-secret-access-key-ABCDEFGHIJ0123456789';
const ENTRA_SECRET = 'entra-client-secret-zyxwvutsrq9876';
const OAUTH_SECRET = 'oauth-client-secret-qwertyuiop1234';
const SECRETS = [OPENAI_KEY, AWS_SECRET, ENTRA_SECRET, OAUTH_SECRET, 'PRIVATE-KEY-MATERIAL-777'];

let seq = 0;
async function makeIntegration(extra: Record<string, unknown> = {}) {
  const r = await call('POST', '/v1/integrations', { name: `Integ ${++seq}`, ai_provider_id: 'openai', key: OPENAI_KEY, ...extra });
  expect(r.status, r.text).toBe(200);
  return r.body as { id: string; slug: string };
}

beforeAll(async () => {
  stack = await startStack({ workers: 0, logger });
  base = stack.controlPlane.httpUrl;
  const ws = await call('POST', '/v1/admin/workspaces', { name: 'Integ Other' });
  expect(ws.status).toBe(200);
  otherWs = ws.body;
});
afterAll(async () => stack?.close());

describe('integrations over REST', () => {
  it('creates, gets with masked secrets, lists, updates (rotates) and deletes', async () => {
    const created = await call('POST', '/v1/integrations', {
      name: 'OpenAI Prod',
      ai_provider_id: 'openai',
      key: OPENAI_KEY,
      description: 'main',
      configurations: { openai_organization: 'org-1', custom_headers: { 'x-team': 'a' } },
      pricing_adjustments: { multiplier: { default: 0.8 } },
      secret_mappings: [{ target_field: 'configurations.openai_project', secret_reference_id: 'my-ref' }],
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ id: expect.stringMatching(UUID_RE), slug: 'openai-prod' });
    const { id, slug } = created.body;

    // At rest: sealed, not in clear.
    const [row] = await sql('select key_sealed, key_mask, configurations::text as c from integration where id = ?', [id]);
    expect(row.key_sealed).toMatch(/^v1\./);
    expect(row.key_sealed).not.toContain(OPENAI_KEY);
    expect(stack.secretBox.open(row.key_sealed, `integration:${id}:key`)).toBe(OPENAI_KEY);

    const got = await call('GET', `/v1/integrations/${slug}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      id,
      organisation_id: stack.organisationId,
      workspace_id: null,
      ai_provider_id: 'openai',
      name: 'OpenAI Prod',
      status: 'active',
      created_at: ISO,
      last_updated_at: ISO,
      slug,
      description: 'main',
      object: 'integration',
      masked_key: 'sk********************89',
      configurations: { openai_organization: 'org-1', custom_headers: { 'x-team': 'a' } },
      global_workspace_access_settings: null,
      allow_all_models: true,
      workspace_count: 0,
      secret_mappings: [{ target_field: 'configurations.openai_project', secret_reference_id: 'my-ref' }],
      pricing_adjustments: { multiplier: { default: 0.8 } },
    });
    expect((await call('GET', `/v2/integrations/${id}`)).body.id).toBe(id);

    const list = await call('GET', '/v1/integrations');
    expect(list.status).toBe(200);
    expect(list.body.object).toBe('list');
    const item = list.body.data.find((i: any) => i.id === id);
    expect(Object.keys(item).sort()).toEqual(['ai_provider_id', 'created_at', 'description', 'id', 'last_updated_at', 'name', 'object', 'organisation_id', 'slug', 'status', 'workspace_id']);

    // Rotation: a new key; the mask follows, the answer is `{}`.
    const upd = await call('PUT', `/v1/integrations/${slug}`, { key: 'sk-rotated-key-abcdefghijklmnop', name: 'OpenAI Main' });
    expect(upd).toMatchObject({ status: 200, body: {} });
    const after = (await call('GET', `/v1/integrations/${id}`)).body;
    expect(after).toMatchObject({ name: 'OpenAI Main', masked_key: 'sk********************op' });

    const audit = await sql('select action, request_details::text as d from audit_event where target_id = ? order by created_at', [id]);
    expect(audit.map((a: any) => a.action)).toEqual(['integration.create', 'integration.update']);
    expect(audit.map((a: any) => a.d).join()).not.toContain('sk-rotated');

    expect(await call('DELETE', `/v1/integrations/${slug}`)).toMatchObject({ status: 200, body: {} });
    expect((await call('GET', `/v1/integrations/${slug}`)).status).toBe(404);
  });

  it('takes the cloud auth types, seals their secrets and answers them only as masked_<field>', async () => {
    const bedrock = await makeIntegration({
      ai_provider_id: 'bedrock',
      key: undefined,
      configurations: { aws_auth_type: 'accessKey', aws_region: 'us-east-1', aws_access_key_id: 'AKIAEXAMPLE123456', aws_secret_access_key: AWS_SECRET },
    });
    const b = (await call('GET', `/v1/integrations/${bedrock.slug}`)).body;
    expect(b.configurations).toEqual({ aws_auth_type: 'accessKey', aws_region: 'us-east-1', masked_aws_access_key_id: 'AK*************56', masked_aws_secret_access_key: expect.stringMatching(/^aw\*+89$/) });
    const [row] = await sql('select configurations::text as c, secrets_sealed from integration where id = ?', [bedrock.id]);
    expect(row.c).not.toContain(AWS_SECRET);
    expect(row.secrets_sealed).not.toContain(AWS_SECRET);

    const role = await makeIntegration({ ai_provider_id: 'bedrock', key: undefined, configurations: { aws_auth_type: 'assumedRole', aws_region: 'eu-west-1', aws_role_arn: 'arn:aws:iam::1:role/x', aws_external_id: 'ext' } });
    expect((await call('GET', `/v1/integrations/${role.id}`)).body.configurations).toEqual({ aws_auth_type: 'assumedRole', aws_region: 'eu-west-1', aws_role_arn: 'arn:aws:iam::1:role/x', aws_external_id: 'ext' });
    await makeIntegration({ ai_provider_id: 'bedrock', key: undefined, configurations: { aws_auth_type: 'serviceRole', aws_region: 'eu-west-1' } });

    const azure = await makeIntegration({
      ai_provider_id: 'azure-openai',
      configurations: {
        azure_auth_mode: 'entra',
        azure_resource_name: 'res',
        azure_entra_tenant_id: 't',
        azure_entra_client_id: 'c',
        azure_entra_client_secret: ENTRA_SECRET,
        azure_deployment_config: [{ azure_api_version: '2024-06-01', azure_deployment_name: 'gpt4o', azure_model_slug: 'gpt-4o', is_default: true }],
      },
    });
    const a = (await call('GET', `/v1/integrations/${azure.id}`)).body;
    expect(a.configurations.masked_azure_entra_client_secret).toMatch(/^en\*+76$/);
    expect(a.configurations.azure_entra_client_secret).toBeUndefined();

    const vertex = await makeIntegration({
      ai_provider_id: 'vertex-ai',
      key: undefined,
      configurations: { vertex_auth_type: 'serviceAccount', vertex_region: 'us-central1', vertex_service_account_json: { type: 'service_account', client_email: 'sa@p.iam', private_key: 'PRIVATE-KEY-MATERIAL-777' } },
    });
    expect((await call('GET', `/v1/integrations/${vertex.id}`)).body.configurations).toEqual({
      vertex_auth_type: 'serviceAccount',
      vertex_region: 'us-central1',
      masked_vertex_service_account_json: { type: 'service_account', client_email: 'sa@p.iam', private_key: '********' },
    });
    await makeIntegration({ ai_provider_id: 'vertex-ai', key: undefined, configurations: { vertex_auth_type: 'wif', vertex_region: 'us-central1', vertex_project_id: 'p' } });

    const oauth = await makeIntegration({
      ai_provider_id: 'anthropic',
      key: undefined,
      configurations: { auth_type: 'oauthClientCredentials', oauth_token_endpoint: 'https://idp.example/token', oauth_client_id: 'cid', oauth_client_secret: OAUTH_SECRET, oauth_scope: 'llm' },
    });
    expect((await call('GET', `/v1/integrations/${oauth.id}`)).body.configurations).toEqual({
      auth_type: 'oauthClientCredentials',
      oauth_token_endpoint: 'https://idp.example/token',
      oauth_client_id: 'cid',
      oauth_scope: 'llm',
      masked_oauth_client_secret: expect.stringMatching(/^oa\*+34$/),
    });

    // Rotating one secret field keeps the others (merge), and a null removes a field.
    expect((await call('PUT', `/v1/integrations/${bedrock.id}`, { configurations: { aws_secret_access_key: 'new-secret-value-xyz-0000' } })).status).toBe(200);
    const [r2] = await sql('select secrets_sealed from integration where id = ?', [bedrock.id]);
    expect(JSON.parse(stack.secretBox.open(r2.secrets_sealed, `integration:${bedrock.id}:configurations`))).toEqual({ aws_access_key_id: 'AKIAEXAMPLE123456', aws_secret_access_key: 'new-secret-value-xyz-0000' });
    const removed = await call('PUT', `/v1/integrations/${bedrock.id}`, { configurations: { aws_secret_access_key: null } });
    expect(removed.status).toBe(400);
    expect(removed.body.error.param).toBe('configurations.aws_secret_access_key');
  });

  it('refuses bad bodies with a 400 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ai_provider_id: 'openai' }, 'name'],
      [{ name: 'x' }, 'ai_provider_id'],
      [{ name: 'x'.repeat(256), ai_provider_id: 'openai' }, 'name'],
      [{ name: 'x', ai_provider_id: 'openai', slug: 'a'.repeat(256) }, 'slug'],
      [{ name: 'x', ai_provider_id: 'openai', slug: 'bad slug!' }, 'slug'],
      [{ name: 'x', ai_provider_id: 'azure-openai', configurations: { azure_auth_mode: 'default' } }, 'configurations.azure_resource_name'],
      [{ name: 'x', ai_provider_id: 'bedrock', configurations: { aws_auth_type: 'accessKey', aws_region: 'us-east-1' } }, 'configurations.aws_access_key_id'],
      [{ name: 'x', ai_provider_id: 'bedrock', configurations: { aws_auth_type: 'assumedRole', aws_region: 'us-east-1' } }, 'configurations.aws_role_arn'],
      [{ name: 'x', ai_provider_id: 'vertex-ai', configurations: { vertex_auth_type: 'serviceAccount', vertex_region: 'r' } }, 'configurations.vertex_service_account_json'],
      [{ name: 'x', ai_provider_id: 'openai', configurations: { auth_type: 'oauthClientCredentials', oauth_client_id: 'c' } }, 'configurations.oauth_token_endpoint'],
      [{ name: 'x', ai_provider_id: 'openai', configurations: { aws_region: 'x' } }, 'configurations.aws_region'],
      [{ name: 'x', ai_provider_id: 'openai', configurations: { custom_host: 'ftp://files.example' } }, 'configurations.custom_host'],
      [{ name: 'x', ai_provider_id: 'openai', configurations: { custom_host: 'https://user:pw@llm.example' } }, 'configurations.custom_host'],
      [{ name: 'x', ai_provider_id: 'openai', secret_mappings: [{ target_field: 'model_config.x', secret_reference_id: 'r' }] }, 'secret_mappings[0].target_field'],
      [{ name: 'x', ai_provider_id: 'openai', pricing_adjustments: { multiplier: { default: -1 } } }, 'pricing_adjustments.multiplier.default'],
      [{ name: 'x', ai_provider_id: 'openai', create_default_provider: true }, 'create_default_provider'],
      [{ name: 'x', ai_provider_id: 'openai', bogus: 1 }, 'bogus'],
    ];
    for (const [body, param] of cases) {
      const r = await call('POST', '/v1/integrations', body);
      expect([r.status, r.body.error?.param], JSON.stringify(body)).toEqual([400, param]);
    }
    await makeIntegration({ slug: 'taken-slug' });
    const dup = await call('POST', '/v1/integrations', { name: 'y', ai_provider_id: 'openai', slug: 'taken-slug' });
    expect([dup.status, dup.body.error.code]).toEqual([409, 'slug_taken']);
  });

  it('filters the list by type (workspace | organisation | all) and by workspace, on /v1 and /admin/v2', async () => {
    const org = await makeIntegration();
    const wsScoped = await makeIntegration({ workspace_id: otherWs.slug });
    const ids = (body: any) => body.data.map((i: any) => i.id);
    for (const path of ['/v1/integrations', '/admin/v2/integrations']) {
      const all = await call('GET', `${path}?page_size=1000`);
      expect(ids(all.body)).toEqual(expect.arrayContaining([org.id, wsScoped.id]));
      const w = await call('GET', `${path}?type=workspace&page_size=1000`);
      expect(ids(w.body)).toContain(wsScoped.id);
      expect(ids(w.body)).not.toContain(org.id);
      const o = await call('GET', `${path}?type=organisation&page_size=1000`);
      expect(ids(o.body)).toContain(org.id);
      expect(ids(o.body)).not.toContain(wsScoped.id);
    }
    expect((await call('GET', '/admin/v2/integrations?type=bogus')).body.error.param).toBe('type');
    // By workspace: its own plus organisation integrations shared with it.
    expect(ids((await call('GET', `/v1/integrations?workspace_id=${otherWs.id}&page_size=1000`)).body)).toEqual([wsScoped.id]);
    await call('PUT', `/v1/integrations/${org.slug}/workspaces`, { workspaces: [{ id: otherWs.id, enabled: true }], create_default_provider: false });
    expect(ids((await call('GET', `/v1/integrations?workspace_id=${otherWs.slug}&page_size=1000`)).body)).toEqual([org.id, wsScoped.id]);
    const paged = await call('GET', '/v1/integrations?page_size=1&current_page=1');
    expect(paged.body.data.length).toBe(1);
    expect(paged.body.total).toBeGreaterThan(1);
  });

  it('a workspace-scoped integration gets a default provider; its slug must be free', async () => {
    const i = await makeIntegration({ workspace_id: otherWs.id, slug: 'ws-openai' });
    const [p] = await sql('select slug, kind, integration_id, workspace_id from provider where integration_id = ?', [i.id]);
    expect(p).toEqual({ slug: 'ws-openai', kind: 'provider', integration_id: i.id, workspace_id: otherWs.id });
    const named = await makeIntegration({ workspace_id: otherWs.id, default_provider_slug: 'my-default' });
    expect((await sql('select slug from provider where integration_id = ?', [named.id]))[0].slug).toBe('my-default');
    const none = await makeIntegration({ workspace_id: otherWs.id, create_default_provider: false });
    expect(await sql('select 1 from provider where integration_id = ?', [none.id])).toEqual([]);
    const taken = await call('POST', '/v1/integrations', { name: 'z', ai_provider_id: 'openai', workspace_id: otherWs.id, default_provider_slug: 'my-default' });
    expect([taken.status, taken.body.error.param]).toEqual([409, 'default_provider_slug']);
    // Nothing half-written: the integration is not there either.
    expect(await sql("select 1 from integration where name = 'z'")).toEqual([]);
  });

  it('models: custom models with custom_headers and custom pricing; delete removes custom ones only', async () => {
    const i = await makeIntegration();
    const put = await call('PUT', `/v1/integrations/${i.slug}/models`, {
      models: [
        { slug: 'gpt-4o', enabled: true, pricing_config: { type: 'static', pay_as_you_go: { request_token: { price: 0.5 }, response_token: { price: 1.5 } } } },
        { slug: 'gpt-3.5', enabled: false },
        { slug: 'my-ft', enabled: true, is_custom: true, is_finetune: true, base_model_slug: 'gpt-4o', configurations: { custom_host: 'https://llm.internal.example/v1' }, custom_headers: { 'x-route': 'ft' } },
      ],
      allow_all_models: false,
    });
    expect(put).toMatchObject({ status: 200, body: {} });
    // The gateway-spec path does the same, and adds per-model custom_headers.
    expect((await call('PUT', `/v1/integrations/${i.id}/integration-models`, { models: [{ slug: 'custom-2', enabled: true, is_custom: true, custom_headers: { 'x-a': '1' } }] })).status).toBe(200);
    const models = await call('GET', `/v1/integrations/${i.slug}/models`);
    expect(models.body.total).toBe(4);
    expect(models.body.models).toContainEqual({
      slug: 'my-ft',
      name: null,
      enabled: true,
      is_custom: true,
      is_finetune: true,
      base_model_slug: 'gpt-4o',
      configurations: { custom_host: 'https://llm.internal.example/v1' },
      custom_headers: { 'x-route': 'ft' },
      pricing_config: null,
    });
    expect(models.body.models.find((m: any) => m.slug === 'gpt-4o').pricing_config).toEqual({ type: 'static', pay_as_you_go: { request_token: { price: 0.5 }, response_token: { price: 1.5 } } });
    expect((await call('GET', `/v1/integrations/${i.id}`)).body.allow_all_models).toBe(false);

    const bad = await call('PUT', `/v1/integrations/${i.slug}/models`, { models: [{ slug: 'x', enabled: true, pricing_config: { type: 'dynamic' } }] });
    expect([bad.status, bad.body.error.param]).toEqual([400, 'models[0].pricing_config.type']);
    expect((await call('PUT', `/v1/integrations/${i.slug}/models`, { allow_all_models: true })).body.error.param).toBe('models');
    const badHost = await call('PUT', `/v1/integrations/${i.slug}/models`, { models: [{ slug: 'x', enabled: true, configurations: { custom_host: 'https://h.example/#frag' } }] });
    expect([badHost.status, badHost.body.error.param]).toEqual([400, 'models[0].configurations.custom_host']);
    const badHeader = await call('PUT', `/v1/integrations/${i.slug}/models`, { models: [{ slug: 'x', enabled: true, custom_headers: { 'bad header': 'v' } }] });
    expect(badHeader.status).toBe(400);

    const notCustom = await call('DELETE', `/v1/integrations/${i.slug}/models?slugs=gpt-4o,my-ft`);
    expect([notCustom.status, notCustom.body.error.param]).toEqual([400, 'slugs']);
    expect((await call('DELETE', `/v1/integrations/${i.slug}/models`)).body.error.param).toBe('slugs');
    expect(await call('DELETE', `/v1/integrations/${i.slug}/models?slugs=my-ft,custom-2`)).toMatchObject({ status: 200, body: {} });
    expect((await call('GET', `/v1/integrations/${i.slug}/models`)).body.models.map((m: any) => m.slug)).toEqual(['gpt-3.5', 'gpt-4o']);
  });

  it('workspaces: per-workspace access with limits, global access, default providers', async () => {
    const i = await makeIntegration({ slug: 'shared-openai' });
    const put = await call('PUT', `/v1/integrations/${i.slug}/workspaces`, {
      workspaces: [{ id: otherWs.slug, enabled: true, usage_limits: [{ credit_limit: 100, type: 'cost' }], rate_limits: [{ type: 'requests', unit: 'rpm', value: 60 }] }],
    });
    expect(put).toMatchObject({ status: 200, body: {} });
    const list = await call('GET', `/v1/integrations/${i.slug}/workspaces`);
    expect(list.body.workspaces).toContainEqual({ id: otherWs.id, enabled: true, usage_limits: [{ credit_limit: 100, type: 'cost' }], rate_limits: [{ type: 'requests', unit: 'rpm', value: 60 }] });
    expect(list.body.workspaces).toContainEqual({ id: stack.workspaceId, enabled: false, usage_limits: null, rate_limits: null });
    expect(list.body.total).toBe(list.body.workspaces.length);
    // A default provider named after the integration in the newly enabled workspace.
    expect(await sql('select slug from provider where integration_id = ? and workspace_id = ?', [i.id, otherWs.id])).toEqual([{ slug: 'shared-openai' }]);
    expect((await call('GET', `/v1/integrations/${i.id}`)).body.workspace_count).toBe(1);

    const global = await call('PUT', `/v1/integrations/${i.slug}/workspaces`, { global_workspace_access: { enabled: true, usage_limits: [{ credit_limit: 5, type: 'tokens' }] }, create_default_provider: false });
    expect(global.status).toBe(200);
    const after = (await call('GET', `/v1/integrations/${i.slug}/workspaces`)).body.workspaces;
    expect(after.find((w: any) => w.id === stack.workspaceId)).toEqual({ id: stack.workspaceId, enabled: true, usage_limits: [{ credit_limit: 5, type: 'tokens' }], rate_limits: null });
    expect(after.find((w: any) => w.id === otherWs.id).usage_limits).toEqual([{ credit_limit: 100, type: 'cost' }]);
    const got = (await call('GET', `/v1/integrations/${i.slug}`)).body;
    expect(got.global_workspace_access_settings).toEqual({ enabled: true, usage_limits: [{ credit_limit: 5, type: 'tokens' }] });

    const bad = [
      [{ workspaces: [{ id: otherWs.id, enabled: true, usage_limits: [{ credit_limit: 1 }, { credit_limit: 2 }] }] }, 'workspaces[0].usage_limits'],
      [{ workspaces: [{ id: otherWs.id, enabled: true, rate_limits: [{ type: 'requests', unit: 'rpx', value: 1 }] }] }, 'workspaces[0].rate_limits[0].unit'],
      [{ workspaces: [{ id: 'ws-nope', enabled: true }] }, 'workspaces[0].id'],
      [{ workspaces: [{ enabled: true }] }, 'workspaces[0].id'],
    ] as const;
    for (const [body, param] of bad) {
      const r = await call('PUT', `/v1/integrations/${i.slug}/workspaces`, body);
      expect([r.status >= 400 && r.status < 500, r.body.error.param], JSON.stringify(body)).toEqual([true, param]);
    }
    const scoped = await makeIntegration({ workspace_id: otherWs.id, create_default_provider: false });
    expect((await call('PUT', `/v1/integrations/${scoped.id}/workspaces`, { workspaces: [{ id: stack.workspaceId, enabled: true }] })).body.error.code).toBe('workspace_scoped_integration');
  });

  it('is organisation-only: a workspace key cannot hold the integrations scopes; a key without them gets 403', async () => {
    const ws = await stack.createKey({ name: 'prov', workspace_id: 'ws-default', scopes: ['providers.list'] });
    expect((await call('GET', '/v1/integrations', undefined, ws.key)).status).toBe(403);
    expect((await call('POST', '/v1/integrations', { name: 'x', ai_provider_id: 'openai' }, ws.key)).status).toBe(403);
    expect((await call('GET', '/v1/integrations', undefined, null)).status).toBe(401);
  });

  it('works through GraphQL with the same rules', async () => {
    const c = await gql('mutation($input: CreateIntegrationInput!) { createIntegration(input: $input) { __typename ... on IntegrationChange { id slug } ... on GatewayError { code param } } }', {
      input: { name: 'GQL Integ', ai_provider_id: 'openai', key: OPENAI_KEY },
    });
    expect(c.body.data.createIntegration).toMatchObject({ __typename: 'IntegrationChange', slug: 'gql-integ' });
    const got = await gql('query($id: ID!) { integration(id: $id) { slug masked_key configurations } }', { id: 'gql-integ' });
    expect(got.body.data.integration).toEqual({ slug: 'gql-integ', masked_key: 'sk********************89', configurations: {} });
    const bad = await gql('mutation($input: CreateIntegrationInput!) { createIntegration(input: $input) { __typename ... on GatewayError { code param status } } }', {
      input: { name: 'x', ai_provider_id: 'bedrock', configurations: { aws_auth_type: 'accessKey' } },
    });
    expect(bad.body.data.createIntegration).toEqual({ __typename: 'GatewayError', code: 'invalid_parameter', param: 'configurations.aws_region', status: 400 });
    const list = await gql('{ integrations(type: "organisation", page_size: 1000) { object total data { slug workspace_id } } }');
    expect(list.body.data.integrations.data.every((i: any) => i.workspace_id === null)).toBe(true);
  });

  it('never shows a secret in an answer, the audit log or a log line', async () => {
    const answers: string[] = [];
    for (const path of ['/v1/integrations?page_size=1000', '/admin/v2/integrations?page_size=1000']) answers.push((await call('GET', path)).text);
    for (const r of await sql<{ slug: string }>('select slug from integration')) {
      answers.push((await call('GET', `/v1/integrations/${r.slug}`)).text, (await call('GET', `/v1/integrations/${r.slug}/models`)).text);
    }
    const audit = (await sql('select request_details::text as d from audit_event')).map((a: any) => a.d);
    const plainColumns = (await sql('select configurations::text as c, coalesce(key_mask, \'\') as m from integration')).map((r: any) => r.c + r.m);
    for (const s of SECRETS) {
      for (const text of [...answers, ...audit, ...plainColumns, ...logLines]) expect(text).not.toContain(s);
    }
  });
});
