// A workspace's default config and the organisation's saved-only mode (block_inline_config), set
// on the control plane and obeyed by a running worker, through the official openai client.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import OpenAI from 'openai';
import { startMockProvider, type MockProvider } from '../support/mock-provider.ts';
import { startStack, type Stack } from '../support/stack.ts';

let stack: Stack;
let mock: MockProvider;
let appKey: string;

async function rest(method: string, path: string, body?: unknown) {
  const res = await fetch(`${stack.controlPlane.httpUrl}${path}`, {
    method,
    headers: { 'x-gateway-api-key': stack.adminKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const client = (headers: Record<string, string> = {}) =>
  new OpenAI({ apiKey: appKey, baseURL: `${stack.workers[0]!.url}/v1`, defaultHeaders: headers, maxRetries: 0 });
const ask = (headers: Record<string, string> = {}) =>
  client(headers).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).withResponse();

async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const v = await fn().catch((e: unknown) => e as T);
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`not reached: ${String(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  stack = await startStack({ workers: 1 });
  mock = await startMockProvider();
  appKey = (await stack.createKey({ name: 'ws-settings-app', workspace_id: 'ws-default', scopes: ['completions.write'] })).key;
});
afterAll(async () => {
  await mock?.close();
  await stack?.close();
});

describe('workspace settings on the data plane', () => {
  it('routes a request that names nothing by the workspace default config', async () => {
    const created = await rest('POST', '/v1/configs', {
      name: 'Workspace default',
      isDefault: 1,
      workspace_id: stack.workspaceId,
      config: { strategy: { mode: 'single' }, targets: [{ provider: 'openai', api_key: 'sk-default-config', custom_host: mock.baseUrl }] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const { data, response } = await eventually(() => ask(), (r) => !!(r as { data?: unknown }).data);
    expect(data.choices[0]!.message.content).toBe('Hello world!');
    expect(response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[0]');
    expect(mock.requests.at(-1)!.headers.authorization).toBe('Bearer sk-default-config');
  });

  it('in saved-only mode refuses a provider named inline, a custom host and an inline config, and still serves saved configs', async () => {
    expect((await rest('PUT', '/v1/admin/organisation/settings', { block_inline_config: true })).status).toBe(200);
    const named = await eventually(
      () => ask({ 'x-gateway-api-key': appKey, 'x-gateway-provider': 'openai', authorization: 'Bearer sk-x', 'x-gateway-custom-host': mock.baseUrl }),
      (e) => (e as { status?: number }).status === 403,
    );
    expect(named).toMatchObject({ status: 403, error: { code: 'inline_config_blocked', param: 'x-gateway-custom-host' } });
    const inline = await ask({ 'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: 'sk-x', custom_host: mock.baseUrl }) }).catch((e: unknown) => e);
    expect(inline).toMatchObject({ status: 403, error: { code: 'inline_config_blocked', param: 'x-gateway-config' } });
    const { data } = await ask();
    expect(data.choices[0]!.message.content).toBe('Hello world!');

    expect((await rest('PUT', '/v1/admin/organisation/settings', { block_inline_config: false })).status).toBe(200);
    await eventually(
      () => ask({ 'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: 'sk-x', custom_host: mock.baseUrl }) }),
      (r) => !!(r as { data?: unknown }).data,
    );
  });
});
