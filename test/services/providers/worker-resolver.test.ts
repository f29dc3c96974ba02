import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { Logger } from '../../../src/domain/logger.ts';
import { providerWorkerResolver, PROVIDER_RESOURCE_TYPE } from '../../../src/services/providers/worker-resolver.ts';
import type { WorkerResolver } from '../../../src/services/sync/worker-resolver.ts';
import { startStack, type Stack } from '../../support/stack.ts';

let stack: Stack;
let base: string;
let resolver: WorkerResolver;
let otherWs: { id: string; slug: string };
const logLines: string[] = [];
const capture = (level: string) => (msg: string, fields?: Record<string, unknown>) => logLines.push(JSON.stringify({ level, msg, ...fields }));
const logger: Logger = { debug: capture('debug'), info: capture('info'), warn: capture('warn'), error: capture('error') };

const sql = <T = any>(q: string, params: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, params);
const resolve = (key: string) => resolver.resolve(stack.db.orm.em.fork(), key);
const answers: string[] = [];

async function call(method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { 'x-gateway-api-key': stack.adminKey };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  answers.push(text);
  expect(res.status, text).toBe(200);
  return text ? JSON.parse(text) : null;
}

const changes = (key: string) => sql<{ version: string; action: string }>('select version::text, action from resource_change where resource_type = ? and resource_key = ? order by resource_change.version', [PROVIDER_RESOURCE_TYPE, key]);
const latest = async (key: string) => Number((await changes(key)).at(-1)?.version ?? 0);

const KEY_1 = 'sk-resolver-first-key-000000000000';
const KEY_2 = 'sk-resolver-rotated-key-1111111111';
const AWS_SECRET = 'aws-resolver-secret-key-22222222222';
const ENTRA_SECRET = 'entra-resolver-secret-33333333333';
const PRIVATE_KEY = '-----BEGIN PRIVATE KEY-----resolver-44444';
const VK_KEY = 'vk-resolver-key-555555555555555';
const OAUTH_SECRET = 'oauth-resolver-secret-66666666666';

beforeAll(async () => {
  stack = await startStack({ workers: 0, logger });
  base = stack.controlPlane.httpUrl;
  resolver = providerWorkerResolver(stack.secretBox);
  otherWs = await call('POST', '/v1/admin/workspaces', { name: 'Resolver Other' });
});
afterAll(async () => stack?.close());

describe('provider worker resolver (key <workspace_id>:<slug>)', () => {
  it('resolves an integration-backed provider with decrypted credentials, models, pricing and both limit levels', async () => {
    const integ = await call('POST', '/v1/integrations', {
      name: 'Resolver OpenAI',
      ai_provider_id: 'openai',
      key: KEY_1,
      configurations: { openai_organization: 'org-9', custom_host: 'https://llm.example.test/v1', custom_headers: { 'x-team': 'blue' } },
      pricing_adjustments: { multiplier: { default: 0.5 } },
    });
    await call('PUT', `/v1/integrations/${integ.slug}/workspaces`, {
      workspaces: [{ id: stack.workspaceId, enabled: true, usage_limits: [{ credit_limit: 50, type: 'cost' }], rate_limits: [{ type: 'requests', unit: 'rpm', value: 10 }] }],
      create_default_provider: false,
    });
    await call('PUT', `/v1/integrations/${integ.slug}/models`, {
      models: [{ slug: 'my-model', enabled: true, is_custom: true, custom_headers: { 'x-model': 'm' }, pricing_config: { type: 'static', pay_as_you_go: { request_token: { price: 1 } } } }],
      allow_all_models: false,
    });
    await call('POST', '/v1/providers', { name: 'p', slug: 'team-openai', integration_id: integ.slug, workspace_id: stack.workspaceId, rate_limits: { type: 'tokens', unit: 'rpd', value: 1000 } });
    const key = `${stack.workspaceId}:team-openai`;
    const r = await resolve(key);
    expect(r).not.toBeNull();
    expect(r!.version).toBe(await latest(key));
    expect(r!.payload).toMatchObject({
      kind: 'provider',
      slug: 'team-openai',
      workspace_id: stack.workspaceId,
      status: 'active',
      provider: 'openai',
      credentials: { apiKey: KEY_1 },
      auth: { type: 'apiKey' },
      custom_host: 'https://llm.example.test/v1',
      custom_headers: { 'x-team': 'blue' },
      options: { openai_organization: 'org-9' },
      integration: { id: integ.id, slug: integ.slug, ai_provider_id: 'openai' },
      models: {
        allow_all_models: false,
        items: [expect.objectContaining({ slug: 'my-model', is_custom: true, custom_headers: { 'x-model': 'm' }, pricing_config: { type: 'static', pay_as_you_go: { request_token: { price: 1 } } } })],
      },
      pricing_adjustments: { multiplier: { default: 0.5 } },
      limits: {
        provider: { usage_limits: null, rate_limits: [{ type: 'tokens', unit: 'rpd', value: 1000 }] },
        workspace: { usage_limits: [{ credit_limit: 50, type: 'cost' }], rate_limits: [{ type: 'requests', unit: 'rpm', value: 10 }] },
      },
      secret_mappings: null,
    });

    // A credential rotation on the integration invalidates the provider: a newer upsert, the new key.
    const before = await latest(key);
    await call('PUT', `/v1/integrations/${integ.slug}`, { key: KEY_2 });
    const after = await resolve(key);
    expect(after!.version).toBeGreaterThan(before);
    expect((await changes(key)).at(-1)!.action).toBe('upsert');
    expect((after!.payload.credentials as any).apiKey).toBe(KEY_2);

    // Model and workspace-limit changes invalidate it too.
    const v1 = await latest(key);
    await call('PUT', `/v1/integrations/${integ.slug}/models`, { models: [{ slug: 'gpt-4o', enabled: false }] });
    const v2 = await latest(key);
    expect(v2).toBeGreaterThan(v1);
    await call('PUT', `/v1/integrations/${integ.slug}/workspaces`, { workspaces: [{ id: stack.workspaceId, enabled: true, usage_limits: [{ credit_limit: 60, type: 'cost' }], reset_usage: true }] });
    expect(await latest(key)).toBeGreaterThan(v2);
    const limits = ((await resolve(key))!.payload.limits as any).workspace;
    expect(limits.usage_limits).toEqual([{ credit_limit: 60, type: 'cost' }]);
    expect(Date.parse(limits.reset_usage_at)).toBeGreaterThan(Date.now() - 60_000);

    // Access revoked: the provider is no longer usable (resolves to nothing).
    await call('PUT', `/v1/integrations/${integ.slug}/workspaces`, { workspaces: [{ id: stack.workspaceId, enabled: false }] });
    expect(await resolve(key)).toBeNull();
    await call('PUT', `/v1/integrations/${integ.slug}/workspaces`, { workspaces: [{ id: stack.workspaceId, enabled: true }] });
    expect(await resolve(key)).not.toBeNull();

    // Deleting the integration deletes its providers: the last change is a delete, and nothing resolves.
    await call('DELETE', `/v1/integrations/${integ.slug}`);
    expect((await changes(key)).at(-1)!.action).toBe('delete');
    expect(await resolve(key)).toBeNull();
  });

  it('maps cloud auth types onto the adapters’ credential fields', async () => {
    await call('POST', '/v1/integrations', {
      name: 'bedrock',
      ai_provider_id: 'bedrock',
      workspace_id: stack.workspaceId,
      default_provider_slug: 'aws',
      configurations: { aws_auth_type: 'accessKey', aws_region: 'us-west-2', aws_access_key_id: 'AKIARESOLVER', aws_secret_access_key: AWS_SECRET },
    });
    expect((await resolve(`${stack.workspaceId}:aws`))!.payload).toMatchObject({
      provider: 'bedrock',
      credentials: { awsAccessKeyId: 'AKIARESOLVER', awsSecretAccessKey: AWS_SECRET, awsRegion: 'us-west-2' },
      auth: { type: 'accessKey' },
    });
    await call('POST', '/v1/integrations', {
      name: 'role',
      ai_provider_id: 'bedrock',
      workspace_id: stack.workspaceId,
      default_provider_slug: 'aws-role',
      configurations: { aws_auth_type: 'assumedRole', aws_region: 'eu-west-1', aws_role_arn: 'arn:aws:iam::1:role/r', aws_external_id: 'ext' },
    });
    expect((await resolve(`${stack.workspaceId}:aws-role`))!.payload).toMatchObject({ credentials: { awsRegion: 'eu-west-1' }, auth: { type: 'assumedRole', role_arn: 'arn:aws:iam::1:role/r', external_id: 'ext' } });

    await call('POST', '/v1/integrations', {
      name: 'azure',
      ai_provider_id: 'azure-openai',
      workspace_id: stack.workspaceId,
      default_provider_slug: 'az',
      configurations: {
        azure_auth_mode: 'entra',
        azure_resource_name: 'res-1',
        azure_entra_tenant_id: 'tenant',
        azure_entra_client_id: 'client',
        azure_entra_client_secret: ENTRA_SECRET,
        azure_deployment_config: [
          { azure_api_version: '2024-02-01', azure_deployment_name: 'd-old', azure_model_slug: 'gpt-35' },
          { azure_api_version: '2024-06-01', azure_deployment_name: 'd-main', azure_model_slug: 'gpt-4o', is_default: true },
        ],
      },
    });
    expect((await resolve(`${stack.workspaceId}:az`))!.payload).toMatchObject({
      provider: 'azure-openai',
      credentials: { azureResourceName: 'res-1', azureDeploymentId: 'd-main', azureApiVersion: '2024-06-01', azureModelName: 'gpt-4o' },
      auth: { type: 'entra', tenant_id: 'tenant', client_id: 'client', client_secret: ENTRA_SECRET },
    });

    await call('POST', '/v1/integrations', {
      name: 'oauth',
      ai_provider_id: 'anthropic',
      workspace_id: stack.workspaceId,
      default_provider_slug: 'claude-oauth',
      configurations: { auth_type: 'oauthClientCredentials', oauth_token_endpoint: 'https://idp.example/token', oauth_client_id: 'cid', oauth_client_secret: OAUTH_SECRET, oauth_scope: 'llm' },
    });
    expect((await resolve(`${stack.workspaceId}:claude-oauth`))!.payload).toMatchObject({
      provider: 'anthropic',
      credentials: {},
      auth: { type: 'oauthClientCredentials', token_endpoint: 'https://idp.example/token', client_id: 'cid', client_secret: OAUTH_SECRET, scope: 'llm' },
    });
    await call('POST', '/v1/integrations', {
      name: 'managed',
      ai_provider_id: 'azure-openai',
      workspace_id: stack.workspaceId,
      default_provider_slug: 'az-managed',
      configurations: { azure_auth_mode: 'managed', azure_managed_client_id: 'mi-1', azure_resource_name: 'r', azure_deployment_config: [{ azure_api_version: 'v', azure_deployment_name: 'd', azure_model_slug: 'm' }] },
    });
    expect((await resolve(`${stack.workspaceId}:az-managed`))!.payload).toMatchObject({ auth: { type: 'managed', client_id: 'mi-1' }, credentials: { azureDeploymentId: 'd' } });

    const sa = { type: 'service_account', client_email: 'sa@proj.iam', private_key: PRIVATE_KEY };
    await call('POST', '/v1/integrations', {
      name: 'vertex',
      ai_provider_id: 'vertex-ai',
      workspace_id: stack.workspaceId,
      default_provider_slug: 'gcp',
      configurations: { vertex_auth_type: 'serviceAccount', vertex_region: 'us-central1', vertex_project_id: 'proj', vertex_service_account_json: sa },
    });
    const v = (await resolve(`${stack.workspaceId}:gcp`))!.payload as any;
    expect(v).toMatchObject({ provider: 'vertex-ai', credentials: { vertexRegion: 'us-central1', vertexProjectId: 'proj' }, auth: { type: 'serviceAccount' } });
    expect(JSON.parse(v.credentials.vertexServiceAccountJson)).toEqual(sa);
  });

  it('resolves a legacy virtual key the same way, by its slug', async () => {
    const vk = await call('POST', '/v1/virtual-keys', {
      name: 'legacy',
      provider: 'azure-openai',
      key: VK_KEY,
      resourceName: 'vk-res',
      deploymentConfig: [{ apiVersion: '2024-06-01', deploymentName: 'vk-dep', is_default: true }],
      workspace_id: otherWs.id,
      usage_limits: { credit_limit: 3, type: 'cost' },
    });
    const key = `${otherWs.id}:${vk.data.slug}`;
    const r = await resolve(key);
    expect(r!.version).toBe(await latest(key));
    expect(r!.payload).toMatchObject({
      kind: 'virtual_key',
      provider: 'azure-openai',
      credentials: { apiKey: VK_KEY, azureResourceName: 'vk-res', azureDeploymentId: 'vk-dep', azureApiVersion: '2024-06-01' },
      integration: null,
      limits: { provider: { usage_limits: { credit_limit: 3, type: 'cost' } } },
    });
    // The same slug is unknown in another workspace.
    expect(await resolve(`${stack.workspaceId}:${vk.data.slug}`)).toBeNull();
    await call('DELETE', `/v1/virtual-keys/${vk.data.slug}`);
    expect(await resolve(key)).toBeNull();
  });

  it('answers null for keys that name nothing', async () => {
    for (const k of ['', 'no-colon', 'not-a-uuid:slug', `${stack.workspaceId}:`, `${stack.workspaceId}:missing`]) expect(await resolve(k)).toBeNull();
  });

  it('never puts a decrypted credential in a log line, a REST answer or the audit log', async () => {
    for (const r of await sql<{ slug: string }>('select slug from integration')) await call('GET', `/v1/integrations/${r.slug}`);
    const audit = (await sql('select request_details::text as d from audit_event')).map((a: any) => a.d);
    for (const secret of [KEY_1, KEY_2, AWS_SECRET, ENTRA_SECRET, PRIVATE_KEY, VK_KEY, OAUTH_SECRET]) {
      for (const text of [...logLines, ...answers, ...audit]) expect(text).not.toContain(secret);
    }
  });
});
