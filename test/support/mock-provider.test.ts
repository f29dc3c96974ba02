import { describe, it, expect, beforeAll, afterAll, beforeEach } from 'vitest';
import OpenAI from 'openai';
import { startMockProvider } from './mock-provider.ts';
import type { MockProvider } from './mock-provider.ts';

/** Parse an SSE text into the payloads of its `data:` lines. */
function sseData(text: string): string[] {
  return text
    .split('\n\n')
    .map((e) => e.trim())
    .filter((e) => e.startsWith('data: '))
    .map((e) => e.slice('data: '.length));
}

interface Chunk {
  id: string;
  object: string;
  model: string;
  choices: Array<{ index: number; delta: { role?: string; content?: string }; finish_reason: string | null }>;
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null;
}

function chunksOf(text: string): Chunk[] {
  return sseData(text)
    .filter((d) => d !== '[DONE]')
    .map((d) => JSON.parse(d) as Chunk);
}

describe('mock provider', () => {
  let mock: MockProvider;

  const chat = (body: Record<string, unknown>, init: RequestInit = {}): Promise<Response> =>
    fetch(`${mock.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...body }),
      ...init,
    });

  beforeAll(async () => {
    mock = await startMockProvider();
  });
  afterAll(async () => {
    await mock.close();
  });
  beforeEach(() => {
    mock.reset();
  });

  it('listens on 127.0.0.1 with an ephemeral port', () => {
    expect(mock.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(mock.baseUrl).toBe(`${mock.url}/v1`);
  });

  it('answers a default OpenAI chat.completion', async () => {
    const res = await chat({ model: 'gpt-4o' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({
      id: expect.stringMatching(/^chatcmpl-mock-\d+$/),
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'gpt-4o',
      system_fingerprint: 'fp_mock',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hello world!', refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
    });
    expect(Math.abs((body.created as number) - Date.now() / 1000)).toBeLessThan(5);
  });

  it('streams chunks without usage unless include_usage is set', async () => {
    const res = await chat({ stream: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await res.text();
    const data = sseData(text);
    expect(data.at(-1)).toBe('[DONE]');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    const chunks = chunksOf(text);
    expect(chunks).toHaveLength(5); // role, 3 deltas, finish
    for (const c of chunks) {
      expect(c.object).toBe('chat.completion.chunk');
      expect(c.model).toBe('gpt-4o-mini');
      expect(c.id).toBe(chunks[0]!.id);
      expect('usage' in c).toBe(false);
    }
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '' });
    expect(chunks.slice(1, 4).map((c) => c.choices[0]!.delta.content)).toEqual(['Hello', ' world', '!']);
    expect(chunks[4]!.choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
  });

  it('streams a final usage chunk with include_usage, like OpenAI', async () => {
    mock.program({ chunks: ['a', 'b'], usage: { prompt_tokens: 3, completion_tokens: 2 } });
    const res = await chat({ stream: true, stream_options: { include_usage: true } });
    const text = await res.text();
    expect(sseData(text).at(-1)).toBe('[DONE]');
    const chunks = chunksOf(text);
    expect(chunks).toHaveLength(5); // role, 2 deltas, finish, usage
    for (const c of chunks.slice(0, -1)) expect(c.usage).toBeNull();
    expect(chunks[3]!.choices[0]!.finish_reason).toBe('stop');
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual({ prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 });
  });

  it('is understood by the openai SDK (non-stream and stream with usage)', async () => {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: mock.baseUrl, maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(completion.choices[0]?.message.content).toBe('Hello world!');
    expect(completion.usage?.total_tokens).toBe(18);

    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let content = '';
    let usage: unknown = undefined;
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(content).toBe('Hello world!');
    expect(usage).toEqual({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
  });

  it('serves GET /v1/models and 404s unknown paths with an OpenAI error', async () => {
    const models = await fetch(`${mock.baseUrl}/models`);
    expect(models.status).toBe(200);
    expect(await models.json()).toEqual({
      object: 'list',
      data: [{ id: 'gpt-4o-mini', object: 'model', created: expect.any(Number), owned_by: 'mock' }],
    });

    const missing = await fetch(`${mock.baseUrl}/nope`, { method: 'POST', body: '{}' });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: { message: expect.any(String), type: 'invalid_request_error', param: null, code: 'not_found' },
    });
  });

  it('answers a programmed status with extra headers and an OpenAI error body, once', async () => {
    mock.program({ status: 429, headers: { 'retry-after': '2' } });
    const limited = await chat({});
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    const body = (await limited.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded', param: null });
    expect(typeof body.error.message).toBe('string');

    mock.program({ status: 500 });
    const failed = await chat({ stream: true });
    expect(failed.status).toBe(500);
    expect(((await failed.json()) as { error: { type: string } }).error.type).toBe('server_error');

    const ok = await chat({});
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();
  });

  it('answers a programmed JSON body', async () => {
    mock.program({ status: 400, body: { custom: true } });
    const res = await chat({});
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ custom: true });
  });

  it('delays the response by delayMs', async () => {
    mock.program({ delayMs: 150 });
    const started = performance.now();
    const res = await chat({});
    const elapsed = performance.now() - started;
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    expect(elapsed).toBeGreaterThanOrEqual(140);
  });

  it('paces stream chunks by chunkDelayMs', async () => {
    mock.program({ chunks: ['x', 'y'], chunkDelayMs: 30 });
    const started = performance.now();
    const text = await (await chat({ stream: true })).text();
    expect(performance.now() - started).toBeGreaterThanOrEqual(80); // 3 gaps
    expect(chunksOf(text).map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('xy');
  });

  it('consumes rules FIFO per (method, path) and keeps persistent ones', async () => {
    mock.program({ status: 500 });
    mock.program({ status: 503 });
    mock.program({ method: 'GET', path: '/v1/models', body: { object: 'list', data: [] } });

    // The models rule is queued last but only competes with rules for its own route.
    const models = await fetch(`${mock.baseUrl}/models`);
    expect(await models.json()).toEqual({ object: 'list', data: [] });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await chat({});
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    expect(statuses).toEqual([500, 503, 200]);

    mock.program({ times: 2, body: { n: 'twice' } });
    mock.program({ persist: true, body: { n: 'always' } });
    mock.program({ body: { n: 'never' } }); // shadowed by the persistent rule
    const bodies: unknown[] = [];
    for (let i = 0; i < 4; i++) bodies.push(await (await chat({})).json());
    expect(bodies).toEqual([{ n: 'twice' }, { n: 'twice' }, { n: 'always' }, { n: 'always' }]);

    mock.reset();
    const after = (await (await chat({})).json()) as { object: string };
    expect(after.object).toBe('chat.completion');
  });

  it('waitForRequests resolves on arrival and times out otherwise', async () => {
    mock.program({ delayMs: 20, persist: true });
    const pending = [chat({}), chat({}), chat({})];
    const seen = await mock.waitForRequests(3);
    expect(seen).toHaveLength(3);
    await Promise.all(pending.map(async (p) => (await p).arrayBuffer()));
    await expect(mock.waitForRequests(2)).resolves.toHaveLength(3); // already there
    await expect(mock.waitForRequests(4, 50)).rejects.toThrow(/timed out/);
  });

  it('records requests with lower-cased headers, raw body and parsed json', async () => {
    const res = await chat({ temperature: 0 }, {
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer sk-abc', 'X-Trace-Id': 't-1' },
    });
    await res.arrayBuffer();
    await fetch(`${mock.url}/v1/models?limit=1`, { headers: { 'x-other': 'y' } }).then((r) => r.arrayBuffer());

    expect(mock.requests).toHaveLength(2);
    const [first, second] = mock.requests;
    expect(first).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
    expect(first!.headers.authorization).toBe('Bearer sk-abc');
    expect(first!.headers['x-trace-id']).toBe('t-1');
    expect(first!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(first!.body)).toEqual(first!.json);
    expect(first!.json).toMatchObject({ model: 'gpt-4o-mini', temperature: 0 });
    expect(first!.receivedAt).toBeLessThanOrEqual(Date.now());
    expect(second).toMatchObject({ method: 'GET', path: '/v1/models', body: '' });
    expect(second!.json).toBeUndefined();
    expect(second!.headers['x-other']).toBe('y');
  });
});

describe('mock provider: hung requests', () => {
  const post = (m: MockProvider, body: Record<string, unknown>, signal?: AbortSignal): Promise<Response> =>
    fetch(`${m.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [], ...body }),
      ...(signal ? { signal } : {}),
    });

  it('hang: the client can abort, and close() still ends hung sockets cleanly', async () => {
    const m = await startMockProvider();
    m.program({ hang: true, persist: true });

    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 100);
    const started = performance.now();
    await expect(post(m, {}, controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
    clearTimeout(timer);
    expect(performance.now() - started).toBeGreaterThanOrEqual(90);

    const hung = post(m, {});
    hung.catch(() => {}); // observed below
    await m.waitForRequests(2);
    await m.close();
    await expect(hung).rejects.toThrow();
    await m.close(); // idempotent
  });

  it('hangAfterChunks: sends some chunks, then stalls until closed', async () => {
    const m = await startMockProvider();
    m.program({ hangAfterChunks: 1 });
    const res = await post(m, { stream: true });
    expect(res.status).toBe(200);

    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (chunksOf(text).length < 2) {
      const { value, done } = await reader.read();
      if (done) throw new Error('stream ended early');
      text += decoder.decode(value, { stream: true });
    }

    await m.close();
    let ended: 'error' | 'done';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) {
          ended = 'done';
          break;
        }
        text += decoder.decode(value, { stream: true });
      }
    } catch {
      ended = 'error';
    }
    expect(ended).toBe('error'); // connection cut mid-body, not a clean end
    const chunks = chunksOf(text);
    expect(chunks).toHaveLength(2);
    expect(chunks[1]!.choices[0]!.delta.content).toBe('Hello');
    expect(text).not.toContain('[DONE]');
    expect(text).not.toContain('"finish_reason":"stop"');
  });
});
