// Pass-through (spec: Data-plane endpoints; issue 6 item 5): any path that is not a built-in
// route, any method, bodies streamed both ways, the provider's answer exactly as sent.
import { describe, it, expect, beforeAll, afterAll, beforeEach } from 'vitest';
import { startMockProvider, type MockProvider, type RouteHandler } from '../support/mock-provider.ts';
import { GATEWAY_KEY, startHarness, type Harness } from './harness.ts';

let mock: MockProvider;
let gw: Harness;

// Answers with a fixed status, odd headers and bytes, in two chunks, to see them unchanged.
const odd: RouteHandler = async (ctx) => {
  ctx.res.writeHead(207, { 'content-type': 'application/x-custom', 'x-provider-thing': 'kept' });
  ctx.res.write('part-1;');
  await ctx.sleep(5);
  ctx.res.end('part-2');
};
const usageJson: RouteHandler = (ctx) => ctx.sendJson(200, { result: 'ok', model: 'm-1', usage: { prompt_tokens: 4, completion_tokens: 6, total_tokens: 10 } });

beforeAll(async () => {
  mock = await startMockProvider({ routes: { 'PUT /v1/some/other/path': odd, 'POST /v1/custom/score': usageJson } });
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

const headers = (extra: Record<string, string> = {}) => ({
  'x-gateway-api-key': GATEWAY_KEY,
  'x-gateway-provider': 'openai',
  authorization: 'Bearer sk-openai',
  'x-gateway-custom-host': mock.baseUrl,
  ...extra,
});

describe('pass-through', () => {
  it('an unknown path goes to the provider unchanged (method, query, body, headers) and comes back exactly as sent', async () => {
    const body = 'raw \u00e9 body, not JSON';
    const res = await fetch(`${gw.url}/v1/some/other/path?a=1&b=two`, {
      method: 'PUT',
      headers: headers({ 'content-type': 'text/plain; charset=utf-8', 'x-custom-caller': 'yes', 'x-gateway-trace-id': 't-pt' }),
      body,
    });
    expect(res.status).toBe(207);
    expect(res.headers.get('content-type')).toBe('application/x-custom');
    expect(res.headers.get('x-provider-thing')).toBe('kept');
    expect(res.headers.get('x-gateway-trace-id')).toBe('t-pt');
    expect(await res.text()).toBe('part-1;part-2');
    const got = mock.requests[0]!;
    expect(`${got.method} ${got.path}${got.search}`).toBe('PUT /v1/some/other/path?a=1&b=two');
    expect(got.body).toBe(body);
    expect(got.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(got.headers['x-custom-caller']).toBe('yes');
    expect(got.headers.authorization).toBe('Bearer sk-openai');
    expect(Object.keys(got.headers).filter((h) => h.startsWith('x-gateway'))).toEqual([]);
    expect(JSON.stringify(got.headers)).not.toContain(GATEWAY_KEY);
    const [rec] = await gw.waitForRecords(1);
    expect(rec).toMatchObject({ endpoint: 'proxy', method: 'PUT', provider: 'openai', status: 207, trace_id: 't-pt', api_key_id: 'key-1' });
  });

  it('tokens in a pass-through JSON answer are recorded', async () => {
    const res = await fetch(`${gw.url}/v1/custom/score`, { method: 'POST', headers: headers({ 'content-type': 'application/json' }), body: '{"x":1}' });
    expect(await res.json()).toEqual({ result: 'ok', model: 'm-1', usage: { prompt_tokens: 4, completion_tokens: 6, total_tokens: 10 } });
    const [rec] = await gw.waitForRecords(1);
    expect(rec).toMatchObject({ endpoint: 'proxy', model: 'm-1', prompt_tokens: 4, completion_tokens: 6, total_tokens: 10 });
  });

  it('/v1/proxy/{path} forces raw pass-through even for a built-in route: no usage injection, the stream as sent', async () => {
    const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true });
    const res = await fetch(`${gw.url}/v1/proxy/chat/completions`, { method: 'POST', headers: headers({ 'content-type': 'application/json' }), body });
    const text = await res.text();
    expect(text).toContain('data: [DONE]');
    expect(mock.requests[0]!.path).toBe('/v1/chat/completions');
    expect(mock.requests[0]!.body).toBe(body); // unchanged: no stream_options added
    const [rec] = await gw.waitForRecords(1);
    expect(rec).toMatchObject({ endpoint: 'proxy', is_stream: true });
  });

  it('GET and DELETE pass through with no body', async () => {
    mock.program({ method: 'DELETE', path: '/v1/things/1', body: { deleted: true } });
    const res = await fetch(`${gw.url}/v1/things/1`, { method: 'DELETE', headers: headers() });
    expect(await res.json()).toEqual({ deleted: true });
    expect(mock.requests[0]!.body).toBe('');
  });

  it('is authenticated like every route', async () => {
    const res = await fetch(`${gw.url}/v1/some/other/path`, { method: 'PUT', headers: { ...headers(), 'x-gateway-api-key': 'gw_unknown_key_000000000000' } });
    expect(res.status).toBe(401);
    expect(mock.requests).toHaveLength(0);
  });

  it('goes through the custom-host check: a private address is refused unless trusted', async () => {
    const strict = await startHarness({ trusted: [] });
    try {
      const res = await fetch(`${strict.url}/v1/some/other/path`, { method: 'PUT', headers: headers() });
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error.param).toBe('x-gateway-custom-host');
      const cfg = JSON.stringify({ provider: 'openai', api_key: 'sk', custom_host: 'http://169.254.169.254/v1' });
      const viaConfig = await fetch(`${strict.url}/v1/anything`, { headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': cfg } });
      expect(viaConfig.status).toBe(400);
      expect(mock.requests).toHaveLength(0);
    } finally {
      await strict.close();
    }
  });

  it('config override_params merge into a pass-through JSON body', async () => {
    mock.program({ path: '/v1/custom/gen', body: { ok: 1 } });
    const config = JSON.stringify({ provider: 'openai', api_key: 'sk-c', custom_host: mock.baseUrl, override_params: { temperature: 0 } });
    const res = await fetch(`${gw.url}/v1/custom/gen`, { method: 'POST', headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': config, 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(await res.json()).toEqual({ ok: 1 });
    expect(mock.requests[0]!.json).toEqual({ a: 1, temperature: 0 });
    expect(mock.requests[0]!.headers['content-type']).toBe('application/json');
  });
});
