// Azure OpenAI (platform A): URL per deployment with api-version, `api-key` or Entra bearer.
import { describe, it, expect, beforeAll, afterAll, beforeEach } from 'vitest';
import { startMockProvider, type MockProvider } from '../../support/mock-provider.ts';
import { azureOpenai, DEFAULT_AZURE_API_VERSION } from '../../../workers/providers/azure-openai/adapter.ts';
import type { CallContext, ProviderCredentials } from '../../../workers/providers/contract.ts';
import { GATEWAY_KEY, startHarness, type Harness } from '../harness.ts';

let mock: MockProvider;
let gw: Harness;

beforeAll(async () => {
  mock = await startMockProvider();
  gw = await startHarness();
});
afterAll(async () => {
  await gw?.close();
  await mock?.close();
});
beforeEach(() => {
  mock.reset();
  gw.records.length = 0;
});

const ctx = (credentials: ProviderCredentials, customHost?: string): CallContext => ({
  provider: 'azure-openai', credentials, ...(customHost ? { customHost } : {}), model: 'gpt-4o', stream: false, upstream: async () => { throw new Error('unused'); }, now: Date.now,
});

describe('azure-openai adapter', () => {
  it('builds https://{resource}.openai.azure.com/openai URLs: deployments for model calls, the root for the rest, api-version always', () => {
    const c = ctx({ azureResourceName: 'my-res', azureDeploymentId: 'dep-1', azureApiVersion: '2024-06-01' });
    expect(azureOpenai.baseUrl(c)).toBe('https://my-res.openai.azure.com/openai');
    expect(azureOpenai.passThroughUrl!('chat/completions', c)).toBe('https://my-res.openai.azure.com/openai/deployments/dep-1/chat/completions?api-version=2024-06-01');
    expect(azureOpenai.passThroughUrl!('embeddings', c)).toBe('https://my-res.openai.azure.com/openai/deployments/dep-1/embeddings?api-version=2024-06-01');
    expect(azureOpenai.passThroughUrl!('files?purpose=batch', c)).toBe('https://my-res.openai.azure.com/openai/files?purpose=batch&api-version=2024-06-01');
    expect(azureOpenai.passThroughUrl!('batches', ctx({ azureResourceName: 'r' }))).toBe(`https://r.openai.azure.com/openai/batches?api-version=${DEFAULT_AZURE_API_VERSION}`);
    // without a deployment id the model names the deployment
    expect(azureOpenai.passThroughUrl!('chat/completions', ctx({ azureResourceName: 'r' }))).toContain('/deployments/gpt-4o/chat/completions');
    expect(() => azureOpenai.baseUrl(ctx({}))).toThrow(/resource name/);
    expect(() => azureOpenai.baseUrl(ctx({ azureResourceName: 'evil.com/x' }))).toThrow();
  });

  it('sends the key as api-key, or an Entra ID token as Authorization: Bearer', () => {
    expect(azureOpenai.authHeaders(ctx({ apiKey: 'az-key' }))).toEqual({ 'api-key': 'az-key' });
    expect(azureOpenai.authHeaders(ctx({ apiKey: 'az-key', accessToken: 'entra-tok' }))).toEqual({ authorization: 'Bearer entra-tok' });
  });
});

describe('azure-openai through the worker (custom host replaces https://{resource}.openai.azure.com/openai)', () => {
  const headers = (extra: Record<string, string> = {}) => ({
    'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': 'azure-openai', authorization: 'Bearer az-key', 'x-gateway-custom-host': `${mock.url}/openai`,
    'x-gateway-azure-resource-name': 'my-res', 'x-gateway-azure-deployment-id': 'dep-1', 'x-gateway-azure-api-version': '2024-10-21', 'content-type': 'application/json', ...extra,
  });

  it('chat JSON: deployment path, api-version, api-key header; the answer unchanged', async () => {
    mock.program({ path: '/openai/deployments/dep-1/chat/completions', body: { id: 'c1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'az' } }], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } } });
    const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: headers(), body });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: 'c1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'az' } }], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } });
    const got = mock.requests[0]!;
    expect(`${got.method} ${got.path}${got.search}`).toBe('POST /openai/deployments/dep-1/chat/completions?api-version=2024-10-21');
    expect(got.headers['api-key']).toBe('az-key');
    expect(got.headers.authorization).toBeUndefined();
    expect(got.body).toBe(body);
    const [rec] = await gw.waitForRecords(1);
    expect(rec).toMatchObject({ provider: 'azure-openai', total_tokens: 4 });
  });

  it('chat streamed: SSE relayed, usage asked for and counted', async () => {
    const sse = await startMockProvider({
      routes: {
        'POST /openai/deployments/dep-1/chat/completions': (ctx) => {
          ctx.res.writeHead(200, { 'content-type': 'text/event-stream' });
          ctx.res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'az' } }] })}\n\n`);
          ctx.res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } })}\n\n`);
          ctx.res.end('data: [DONE]\n\n');
        },
      },
    });
    try {
      const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: headers({ 'x-gateway-custom-host': `${sse.url}/openai` }), body: JSON.stringify({ model: 'gpt-4o', messages: [], stream: true }) });
      expect(await res.text()).toBe(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'az' } }] })}\n\ndata: [DONE]\n\n`);
      expect(sse.requests[0]!.search).toBe('?api-version=2024-10-21');
      const [rec] = await gw.waitForRecords(1);
      expect(rec).toMatchObject({ is_stream: true, total_tokens: 6 });
    } finally {
      await sse.close();
    }
  });

  it('files and pass-through sit at the root with api-version; an Entra token goes as bearer', async () => {
    mock.program({ method: 'GET', path: '/openai/files', body: { object: 'list', data: [] } });
    const res = await fetch(`${gw.url}/v1/files?limit=1`, { headers: headers({ 'x-gateway-azure-ad-token': 'entra-tok' }) });
    expect(await res.json()).toEqual({ object: 'list', data: [] });
    expect(`${mock.requests[0]!.path}${mock.requests[0]!.search}`).toBe('/openai/files?limit=1&api-version=2024-10-21');
    expect(mock.requests[0]!.headers.authorization).toBe('Bearer entra-tok');
    mock.program({ method: 'GET', path: '/openai/deployments', body: { data: [] } });
    await (await fetch(`${gw.url}/v1/deployments`, { headers: headers() })).json();
    expect(`${mock.requests[1]!.path}${mock.requests[1]!.search}`).toBe('/openai/deployments?api-version=2024-10-21');
  });

  it('an inline config carries the Azure fields (resource_name, deployment_id, api_version)', async () => {
    mock.program({ path: '/openai/deployments/cfg-dep/embeddings', body: { object: 'list', data: [], usage: { prompt_tokens: 1, total_tokens: 1 } } });
    const config = { provider: 'azure-openai', api_key: 'cfg-key', resource_name: 'r', deployment_id: 'cfg-dep', api_version: '2024-02-01', custom_host: `${mock.url}/openai` };
    const res = await fetch(`${gw.url}/v1/embeddings`, { method: 'POST', headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': JSON.stringify(config), 'content-type': 'application/json' }, body: '{"model":"e","input":"x"}' });
    expect(res.status).toBe(200);
    expect(`${mock.requests[0]!.path}${mock.requests[0]!.search}`).toBe('/openai/deployments/cfg-dep/embeddings?api-version=2024-02-01');
    expect(mock.requests[0]!.headers['api-key']).toBe('cfg-key');
  });
});
