import { describe, it, expect, beforeAll, afterAll, beforeEach } from 'vitest';
import { startMockProvider, type MockProvider } from '../support/mock-provider.ts';
import { startStack, type Stack } from '../support/stack.ts';

let stack: Stack;
let mock: MockProvider;
let worker: string;
let key: string;

const sql = <T>(q: string, p: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, p);
const body = (extra: Record<string, unknown> = {}) => JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...extra });
const headers = (over: Record<string, string | null> = {}) => {
  const h: Record<string, string> = {
    'x-gateway-api-key': key,
    'x-gateway-provider': 'openai',
    authorization: 'Bearer sk-provider',
    'x-gateway-custom-host': mock.baseUrl,
    'content-type': 'application/json',
  };
  for (const [k, v] of Object.entries(over)) {
    if (v === null) delete h[k];
    else h[k] = v;
  }
  return h;
};
const chat = (over: Record<string, string | null> = {}, b = body(), url = worker) =>
  fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: headers(over), body: b });

async function logRow(traceId: string): Promise<any> {
  // The row is written asynchronously (batched over gRPC); wait for it, bounded.
  for (let i = 0; i < 200; i++) {
    const rows = await sql('select * from request_log where trace_id = ?', [traceId]);
    if (rows.length) return rows[0];
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no request_log row for ${traceId}`);
}

beforeAll(async () => {
  stack = await startStack({ workers: 1 });
  mock = await startMockProvider();
  worker = stack.workers[0]!.url;
  key = (await stack.createKey({ name: 'app', workspace_id: 'ws-default', scopes: ['completions.write'] })).key;
});
afterAll(async () => {
  await mock?.close();
  await stack?.close();
});
beforeEach(() => mock.reset());

describe('POST /v1/chat/completions through the worker', () => {
  it('returns the provider JSON unchanged with a trace id, and forwards the provider key, not the gateway key', async () => {
    const res = await chat({ 'x-gateway-trace-id': 'trace-json-1' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-trace-id')).toBe('trace-json-1');
    expect(res.headers.get('x-gateway-provider')).toBe('openai');
    const json = (await res.json()) as any;
    expect(json.choices[0].message.content).toBe('Hello world!');
    const got = mock.requests[0]!;
    expect(got.headers.authorization).toBe('Bearer sk-provider');
    expect(JSON.stringify(got.headers)).not.toContain(key);
    expect(Object.keys(got.headers).filter((h) => h.startsWith('x-gateway'))).toEqual([]);
    expect(got.body).toBe(body()); // non-stream bodies go upstream byte for byte
    const row = await logRow('trace-json-1');
    expect(row).toMatchObject({ provider: 'openai', model: 'gpt-4o-mini', status: 200, prompt_tokens: 11, completion_tokens: 7, total_tokens: 18, is_stream: false, workspace_id: stack.workspaceId, endpoint: 'chat.completions' });
    expect(row.latency_ms).toBeGreaterThanOrEqual(row.upstream_latency_ms);
  });

  it('generates a trace id when none is sent', async () => {
    const res = await chat();
    expect(res.headers.get('x-gateway-trace-id')).toMatch(/^[0-9a-f-]{36}$/);
    await res.arrayBuffer();
  });

  it('streams chunk by chunk: the first chunk arrives while the provider is still stalled', async () => {
    mock.program({ hangAfterChunks: 1 });
    const res = await chat({ 'x-gateway-trace-id': 'trace-stall' }, body({ stream: true }));
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('Hello')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect(text).toContain('"content":"Hello"');
    await reader.cancel();
  });

  it('asks for stream usage, hides the extra chunk from a caller who did not, and logs the tokens', async () => {
    const res = await chat({ 'x-gateway-trace-id': 'trace-stream' }, body({ stream: true }));
    const text = await res.text();
    expect(JSON.parse(mock.requests[0]!.body).stream_options).toEqual({ include_usage: true });
    expect(text).not.toContain('"choices":[]');
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
    expect(await logRow('trace-stream')).toMatchObject({ is_stream: true, prompt_tokens: 11, completion_tokens: 7, total_tokens: 18, status: 200 });
  });

  it('keeps the usage chunk for a caller who asked for it', async () => {
    const res = await chat({}, body({ stream: true, stream_options: { include_usage: true } }));
    expect(await res.text()).toContain('"choices":[]');
  });

  it('passes provider errors through with their status and logs them', async () => {
    mock.program({ status: 429, headers: { 'retry-after': '3' } });
    const res = await chat({ 'x-gateway-trace-id': 'trace-429' });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3');
    expect(((await res.json()) as any).error.code).toBe('rate_limit_exceeded');
    expect(await logRow('trace-429')).toMatchObject({ status: 429, error_code: 'upstream_429' });
  });

  it.each([
    [{ 'x-gateway-api-key': null, authorization: null }, 401, 'missing_api_key', null],
    [{ 'x-gateway-api-key': 'Z'.repeat(48) }, 401, 'invalid_api_key', null],
    [{ 'x-gateway-provider': null }, 400, 'missing_provider', 'x-gateway-provider'],
    [{ 'x-gateway-provider': 'nope' }, 400, 'invalid_parameter', 'x-gateway-provider'],
    [{ authorization: null }, 400, 'missing_provider_key', 'authorization'],
    [{ 'x-gateway-custom-host': 'http://169.254.169.254/latest' }, 400, 'invalid_parameter', 'x-gateway-custom-host'],
    [{ 'x-gateway-custom-host': 'ftp://example.com' }, 400, 'invalid_parameter', 'x-gateway-custom-host'],
    [{ 'x-gateway-metadata': '[1]' }, 400, 'invalid_parameter', 'x-gateway-metadata'],
  ])('refuses %j with %i %s', async (over, status, code, param) => {
    const res = await chat(over as Record<string, string | null>);
    expect(res.status).toBe(status);
    const err = ((await res.json()) as any).error;
    expect(err).toMatchObject({ code, param });
    expect(typeof err.message).toBe('string');
    expect(mock.requests).toHaveLength(0);
  });

  it('validates the body, naming the field', async () => {
    for (const [b, param] of [['{bad', 'body'], [JSON.stringify({ messages: [] }), 'model'], [JSON.stringify({ model: 'm' }), 'messages']] as const) {
      const res = await chat({}, b);
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error.param).toBe(param);
    }
  });

  it('refuses a key without the completions.write scope', async () => {
    const other = await stack.createKey({ name: 'ro', workspace_id: 'ws-default', scopes: ['logs.view'] });
    const res = await chat({ 'x-gateway-api-key': other.key });
    expect(res.status).toBe(403);
    expect(((await res.json()) as any).error.code).toBe('missing_scope');
  });

  it('answers 502 when the provider cannot be reached, and logs it', async () => {
    const res = await chat({ 'x-gateway-custom-host': 'http://127.0.0.1:1/v1', 'x-gateway-trace-id': 'trace-502' });
    expect(res.status).toBe(502);
    expect(((await res.json()) as any).error.code).toBe('upstream_unreachable');
    expect(await logRow('trace-502')).toMatchObject({ status: 502, error_code: 'upstream_unreachable' });
  });

  it('refuses a private custom host unless it is in TRUSTED_CUSTOM_HOSTS', async () => {
    const strict = await stack.startWorker({ trustedCustomHosts: [] });
    const res = await chat({}, body(), strict.url);
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.message).toContain('private or reserved');
    const listed = await stack.startWorker({ trustedCustomHosts: [new URL(mock.url).host] });
    expect((await chat({}, body(), listed.url)).status).toBe(200);
  });

  it('reports health', async () => {
    const res = await fetch(`${worker}/health`);
    expect(await res.json()).toMatchObject({ status: 'ok', control_plane: { reachable: true }, usage: { dropped: 0 } });
  });
});
