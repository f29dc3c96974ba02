// A managed provider end to end: created on the control plane (integration + provider), used by an
// app as `@slug` through the official openai client; the worker gets its decrypted key over gRPC.
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

const client = (headers: Record<string, string>) =>
  new OpenAI({ apiKey: appKey, baseURL: `${stack.workers[0]!.url}/v1`, defaultHeaders: headers, maxRetries: 0 });

beforeAll(async () => {
  stack = await startStack({ workers: 1 });
  mock = await startMockProvider();
  appKey = (await stack.createKey({ name: 'managed-app', workspace_id: 'ws-default', scopes: ['completions.write'] })).key;
  const integ = await rest('POST', '/v1/integrations', {
    name: 'Team OpenAI',
    ai_provider_id: 'openai',
    key: 'sk-managed-secret-0123456789',
    configurations: { custom_host: mock.baseUrl, custom_headers: { 'X-Team': 'blue' } },
  });
  expect(integ.status, JSON.stringify(integ.body)).toBe(200);
  expect((await rest('PUT', `/v1/integrations/${integ.body.slug}/workspaces`, { workspaces: [{ id: stack.workspaceId, enabled: true }], create_default_provider: false })).status).toBe(200);
  expect((await rest('POST', '/v1/providers', { name: 'Team', slug: 'team-openai', integration_id: integ.body.slug, workspace_id: stack.workspaceId })).status).toBe(200);
});
afterAll(async () => {
  await mock?.close();
  await stack?.close();
});

describe('managed providers (@slug)', () => {
  it('sends the stored key and custom headers to the stored host; the app never holds the provider key', async () => {
    const { data, response } = await client({ 'x-gateway-provider': '@team-openai' })
      .chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    expect(data.choices[0]!.message.content).toBe('Hello world!');
    expect(response.headers.get('x-gateway-provider')).toBe('openai');
    const seen = mock.requests.at(-1)!;
    expect(seen.headers.authorization).toBe('Bearer sk-managed-secret-0123456789');
    expect(seen.headers['x-team']).toBe('blue');
  });

  it('refuses an unknown slug with a 400 naming the header', async () => {
    const err = await client({ 'x-gateway-provider': '@nope' })
      .chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e as { status: number; error: { code: string; param: string } });
    expect(err).toMatchObject({ status: 400, error: { code: 'provider_not_found', param: 'x-gateway-provider' } });
  });

  it('uses the rotated key as soon as the integration changes (pushed by Watch)', async () => {
    const list = await rest('GET', '/v1/integrations');
    const slug = (list.body.data as { slug: string; name: string }[]).find((i) => i.name === 'Team OpenAI')!.slug;
    expect((await rest('PUT', `/v1/integrations/${slug}`, { key: 'sk-managed-rotated-9876543210' })).status).toBe(200);
    const deadline = Date.now() + 5_000;
    for (;;) {
      await client({ 'x-gateway-provider': '@team-openai' }).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
      if (mock.requests.at(-1)!.headers.authorization === 'Bearer sk-managed-rotated-9876543210') break;
      if (Date.now() > deadline) throw new Error('the worker kept the old key');
      await new Promise((r) => setTimeout(r, 50));
    }
  });
});

describe('integrated model catalogue (GET /v1/models)', () => {
  it('lists the workspace providers’ models as @provider/model without a provider signal, and proxies with one', async () => {
    const page = await client({}).models.list();
    const ids = page.data.map((m) => m.id);
    expect(ids).toContain('@team-openai/gpt-4o');
    expect(page.data.find((m) => m.id === '@team-openai/gpt-4o')).toMatchObject({ object: 'model', owned_by: 'openai' });
    // With the provider named, the provider's own list answers (the mock's).
    const before = mock.requests.length;
    await client({ 'x-gateway-provider': '@team-openai' }).models.list().catch(() => null);
    expect(mock.requests.length).toBe(before + 1);
    expect(mock.requests.at(-1)!.path).toBe('/v1/models');
  });
});
