// Provider authentication, the spec's four combinations (spec: Authentication 2), and the
// request headers of the data plane (forward, sensitive, metadata, provider-specific).
import { describe, it, expect, beforeAll, afterAll, beforeEach } from 'vitest';
import { startMockProvider, type MockProvider } from '../support/mock-provider.ts';
import { GATEWAY_KEY, ORG_KEY, startHarness, type Harness } from './harness.ts';

let mock: MockProvider;
let gw: Harness;

beforeAll(async () => {
  mock = await startMockProvider();
  gw = await startHarness({ keyDefaults: { metadata: { team: 'search', _user: 'default-user' } } });
});
afterAll(async () => {
  await gw?.close();
  await mock?.close();
});
beforeEach(() => {
  mock.reset();
  gw.records.length = 0;
  gw.providers.clear();
  gw.setDirectoryDown(false);
});

const chatBody = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
const chat = (headers: Record<string, string>) =>
  fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'x-gateway-api-key': GATEWAY_KEY, 'content-type': 'application/json', ...headers }, body: chatBody });
const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; param: string | null } }).error;

describe('managed provider (@slug) and legacy virtual key', () => {
  it('@slug: the stored credentials and host are used, never the caller bearer', async () => {
    gw.providers.set('ws-1/openai-prod', { provider: 'openai', credentials: { apiKey: 'sk-managed' }, customHost: mock.baseUrl });
    const res = await chat({ 'x-gateway-provider': '@openai-prod', authorization: 'Bearer sk-caller' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-provider')).toBe('openai');
    expect(mock.requests[0]!.headers.authorization).toBe('Bearer sk-managed');
    const [rec] = await gw.waitForRecords(1);
    expect(rec).toMatchObject({ provider: 'openai', workspace_id: 'ws-1', status: 200 });
  });

  it('the legacy x-gateway-virtual-key header resolves the same way', async () => {
    gw.providers.set('ws-1/legacy-vk', { provider: 'openai', credentials: { apiKey: 'sk-vk' }, customHost: mock.baseUrl });
    const res = await chat({ 'x-gateway-virtual-key': 'legacy-vk' });
    expect(res.status).toBe(200);
    expect(mock.requests[0]!.headers.authorization).toBe('Bearer sk-vk');
  });

  it('unknown slug 400; control plane away 503; a custom host beside a managed provider is refused (the key would go to a host the caller chose)', async () => {
    const unknown = await chat({ 'x-gateway-provider': '@nope' });
    expect(unknown.status).toBe(400);
    expect(await errorOf(unknown)).toMatchObject({ code: 'provider_not_found', param: 'x-gateway-provider' });
    gw.setDirectoryDown(true);
    const down = await chat({ 'x-gateway-provider': '@any' });
    expect(down.status).toBe(503);
    expect((await errorOf(down)).code).toBe('control_plane_unavailable');
    gw.setDirectoryDown(false);
    gw.providers.set('ws-1/p', { provider: 'openai', credentials: { apiKey: 'sk-m' } });
    const hijack = await chat({ 'x-gateway-provider': '@p', 'x-gateway-custom-host': mock.baseUrl });
    expect(hijack.status).toBe(400);
    expect((await errorOf(hijack)).param).toBe('x-gateway-custom-host');
    expect(mock.requests).toHaveLength(0);
  });

  it('an organisation key names no workspace: managed providers need a workspace key', async () => {
    const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'x-gateway-api-key': ORG_KEY, 'x-gateway-provider': '@p', 'content-type': 'application/json' }, body: chatBody });
    expect(res.status).toBe(400);
  });
});

describe('provider name + Authorization, and custom host', () => {
  it('the bearer becomes the provider header; a missing key is a 400 naming authorization', async () => {
    const ok = await chat({ 'x-gateway-provider': 'openai', authorization: 'Bearer sk-x', 'x-gateway-custom-host': mock.baseUrl });
    expect(ok.status).toBe(200);
    expect(mock.requests[0]!.headers.authorization).toBe('Bearer sk-x');
    const missing = await chat({ 'x-gateway-provider': 'openai', 'x-gateway-custom-host': mock.baseUrl });
    expect(missing.status).toBe(400);
    expect(await errorOf(missing)).toMatchObject({ code: 'missing_provider_key', param: 'authorization' });
  });

  it('local servers (ollama) need no key; the custom host replaces the base URL exactly', async () => {
    const res = await chat({ 'x-gateway-provider': 'ollama', 'x-gateway-custom-host': `${mock.url}/v1` });
    expect(res.status).toBe(200);
    expect(mock.requests[0]!.headers.authorization).toBeUndefined();
    expect(mock.requests[0]!.path).toBe('/v1/chat/completions');
  });
});

describe('inline config carrying the provider details', () => {
  it('a single target: provider, api_key, custom_host, override_params; the gateway key may then sit in Authorization', async () => {
    const config = { provider: 'openai', api_key: 'sk-config', custom_host: mock.baseUrl, override_params: { temperature: 0 } };
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'x-gateway-config': JSON.stringify(config), 'content-type': 'application/json' },
      body: chatBody,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-last-used-option-index')).toBe('config');
    const got = mock.requests[0]!;
    expect(got.headers.authorization).toBe('Bearer sk-config');
    expect(got.json).toEqual({ ...JSON.parse(chatBody), temperature: 0 });
  });

  it('nested targets: the first leaf answers (the routing engine comes later), with inherited settings', async () => {
    const config = { strategy: { mode: 'fallback' }, override_params: { max_tokens: 5 }, targets: [{ provider: 'openai', api_key: 'sk-a', custom_host: mock.baseUrl }, { provider: 'groq', api_key: 'sk-b' }] };
    const res = await chat({ 'x-gateway-config': JSON.stringify(config) });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[0]');
    expect(mock.requests[0]!.headers.authorization).toBe('Bearer sk-a');
    expect((mock.requests[0]!.json as any).max_tokens).toBe(5);
  });

  it('a config target may name a managed provider; invalid configs are 400s naming the field', async () => {
    gw.providers.set('ws-1/prod', { provider: 'openai', credentials: { apiKey: 'sk-managed' }, customHost: mock.baseUrl });
    const res = await chat({ 'x-gateway-config': JSON.stringify({ provider: '@prod' }) });
    expect(res.status).toBe(200);
    expect(mock.requests[0]!.headers.authorization).toBe('Bearer sk-managed');
    const bad = await chat({ 'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: 'k', retry: { attempts: 9 } }) });
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).param).toContain('retry.attempts');
    // Saved configs are resolved through the resource cache (routing-e2e.test.ts); this harness has none.
    const saved = await chat({ 'x-gateway-config': 'pc-saved-config' });
    expect(saved.status).toBe(503);
    expect((await errorOf(saved)).code).toBe('config_directory_unavailable');
  });
});

describe('request headers', () => {
  it('x-gateway-forward-headers forwards named headers as given; x-gateway-openai-* reach OpenAI as openai-*', async () => {
    const res = await chat({
      'x-gateway-provider': 'openai', authorization: 'Bearer sk', 'x-gateway-custom-host': mock.baseUrl,
      'x-gateway-forward-headers': 'X-Tenant-Id, x-request-source', 'x-tenant-id': 't-9', 'x-request-source': 'batch', 'x-not-forwarded': 'no',
      'x-gateway-openai-organization': 'org-42',
    });
    expect(res.status).toBe(200);
    const got = mock.requests[0]!.headers;
    expect(got['x-tenant-id']).toBe('t-9');
    expect(got['x-request-source']).toBe('batch');
    expect(got['x-not-forwarded']).toBeUndefined();
    expect(got['openai-organization']).toBe('org-42');
  });

  it('x-gateway-forward-headers may not name the gateway headers', async () => {
    const res = await chat({ 'x-gateway-provider': 'openai', authorization: 'Bearer sk', 'x-gateway-forward-headers': 'x-gateway-api-key' });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).param).toBe('x-gateway-forward-headers');
  });

  it('x-gateway-sensitive-headers: values hashed in logs (case-insensitive), nothing forwarded because of it', async () => {
    const res = await chat({
      'x-gateway-provider': 'openai', authorization: 'Bearer sk', 'x-gateway-custom-host': 'http://127.0.0.1:1/v1',
      'x-gateway-forward-headers': 'x-secret-token, x-plain', 'x-secret-token': 'hunter2', 'x-plain': 'visible', 'x-other': 'o',
      'x-gateway-sensitive-headers': 'X-Secret-Token, x-other',
    });
    expect(res.status).toBe(502);
    const logged = JSON.stringify(gw.errors.at(-1));
    expect(logged).not.toContain('hunter2');
    expect(logged).toContain('sha256:');
    expect(logged).toContain('visible');
    expect(logged).not.toContain('"x-other"');
  });

  it('metadata: the key defaults under the request, _user carried in the record', async () => {
    const res = await chat({ 'x-gateway-provider': 'openai', authorization: 'Bearer sk', 'x-gateway-custom-host': mock.baseUrl, 'x-gateway-metadata': JSON.stringify({ _user: 'alice', env: 'prod' }) });
    expect(res.status).toBe(200);
    const [rec] = await gw.waitForRecords(1);
    expect(JSON.parse(rec!.metadata_json)).toEqual({ team: 'search', _user: 'alice', env: 'prod' });
  });
});
