// Issue 7 as a user meets it: a config saved on the control plane (REST), named by slug from the
// official openai client, resolved by the worker over gRPC; retries, fallback and the cache seen
// through the gateway's response headers.
import { describe, it, expect, beforeAll, afterAll, beforeEach } from 'vitest';
import OpenAI from 'openai';
import { startMockProvider, type MockProvider } from '../support/mock-provider.ts';
import { startStack, type Stack } from '../support/stack.ts';

let stack: Stack;
let mock: MockProvider;
let client: OpenAI;

async function rest(method: string, path: string, body?: unknown) {
  const res = await fetch(`${stack.controlPlane.httpUrl}${path}`, {
    method,
    headers: { 'x-gateway-api-key': stack.adminKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

beforeAll(async () => {
  stack = await startStack({ workers: 1 });
  mock = await startMockProvider();
  const target = (model: string) => ({ provider: 'openai', api_key: 'sk-e2e-provider', custom_host: mock.baseUrl, override_params: { model } });
  const saved = await rest('POST', '/v1/configs', {
    name: 'Routed',
    workspace_id: stack.workspaceId,
    config: {
      cache: { mode: 'simple', max_age: 60 },
      strategy: { mode: 'fallback' },
      targets: [{ ...target('primary'), retry: { attempts: 1, on_status_codes: [429, 500] } }, target('secondary')],
    },
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  const key = (await stack.createKey({ name: 'routing-e2e', workspace_id: 'ws-default', scopes: ['completions.write'] })).key;
  client = new OpenAI({ apiKey: key, baseURL: `${stack.workers[0]!.url}/v1`, defaultHeaders: { 'x-gateway-config': saved.body.data.id }, maxRetries: 0 });
});
afterAll(async () => {
  await mock?.close();
  await stack?.close();
});
beforeEach(() => mock.reset());

const ask = (content: string) => client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }).withResponse();
const models = () => mock.requests.map((r) => (r.json as { model: string }).model);

describe('a saved config through the openai client', () => {
  it('retries a rate-limited primary and reports the retry', async () => {
    mock.program({ status: 429, headers: { 'retry-after-ms': '1' } });
    const { data, response } = await ask('retry me');
    expect(data.choices[0]!.message.content).toBe('Hello world!');
    expect(response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[0]');
    expect(response.headers.get('x-gateway-retry-attempt-count')).toBe('1');
    expect(response.headers.get('x-gateway-cache-status')).toBe('MISS');
    expect(models()).toEqual(['primary', 'primary']);
  });

  it('falls back to the secondary when the primary keeps failing', async () => {
    mock.program({ status: 500, times: 2 });
    const { response } = await ask('fall back');
    expect(response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    expect(response.headers.get('x-gateway-retry-attempt-count')).toBe('0');
    expect(models()).toEqual(['primary', 'primary', 'secondary']);
  });

  it('answers a repeated request from the cache', async () => {
    const first = await ask('cache me');
    expect(first.response.headers.get('x-gateway-cache-status')).toBe('MISS');
    const second = await ask('cache me');
    expect(second.response.headers.get('x-gateway-cache-status')).toBe('HIT');
    expect(second.data).toEqual(first.data);
    expect(mock.requests).toHaveLength(1);
  });
});
