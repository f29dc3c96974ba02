// Builds each call with the adapter, sends it with real fetch to the Cohere mock on
// 127.0.0.1, and translates the real answer back (JSON and streamed).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cohereAdapter } from '../../../../workers/providers/cohere/adapter.ts';
import type { CallContext, EndpointAdapter } from '../../../../workers/providers/contract.ts';
import { sendCall, translateStream } from '../shared/send.ts';
import { startMockCohere } from '../../../support/mock-cohere.ts';
import type { MockProvider } from '../../../support/mock-provider.ts';

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockCohere();
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const ctx = (stream: boolean, model = 'command-a-03-2025'): CallContext => ({
  provider: 'cohere',
  credentials: { apiKey: 'co-rt' },
  customHost: mock.url,
  model,
  stream,
  upstream: () => Promise.reject(new Error('unused')),
  now: () => Date.now(),
});

const send = (ep: EndpointAdapter, body: Record<string, unknown>, c: CallContext) => sendCall(cohereAdapter, ep, body, c);

type Chunk = { choices: { delta: { content?: string; tool_calls?: { function: { arguments: string } }[] }; finish_reason: string | null }[]; usage?: unknown };
const chunksOf = (sse: string): Chunk[] =>
  sse
    .split('\n\n')
    .filter((f) => f.startsWith('data: ') && f !== 'data: [DONE]')
    .map((f) => JSON.parse(f.slice(6)) as Chunk);

const chat = cohereAdapter.endpoints['chat.completions']!;

describe('cohere round trip', () => {
  it('chat JSON', async () => {
    mock.program({ path: '/v2/chat', chunks: ['Hi', ' there'], usage: { prompt_tokens: 4, completion_tokens: 2 } });
    const c = ctx(false);
    const res = await send(chat, { messages: [{ role: 'user', content: 'Hello' }] }, c);
    expect(res.status).toBe(200);
    const json = await res.json();
    expect(chat.usage!(json)).toEqual({ prompt: 4, completion: 2, total: 6 });
    expect(chat.response!(json, c)).toMatchObject({
      object: 'chat.completion',
      choices: [{ message: { role: 'assistant', content: 'Hi there' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 },
    });
    expect(mock.requests[0]!.headers.authorization).toBe('Bearer co-rt');
    expect(mock.requests[0]!.path).toBe('/v2/chat');
  });

  it('chat stream with text, then with a required tool call', async () => {
    mock.program({ path: '/v2/chat', chunks: ['a', 'b', 'c'], usage: { prompt_tokens: 3, completion_tokens: 3 } });
    const c = ctx(true);
    const { text, usage } = await translateStream(chat, await send(chat, { messages: [{ role: 'user', content: 'x' }], stream: true }, c), c);
    const chunks = chunksOf(text);
    expect(chunks.map((ch) => ch.choices[0]?.delta.content ?? '').join('')).toBe('abc');
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks.at(-1)!.usage).toEqual({ prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 });
    expect(usage).toEqual({ prompt: 3, completion: 3, total: 6 });

    mock.program({ path: '/v2/chat', chunks: ['dogs'] });
    const c2 = ctx(true);
    const body = { messages: [{ role: 'user', content: 'find' }], tools: [{ type: 'function', function: { name: 'search' } }], tool_choice: 'required' };
    const tool = chunksOf((await translateStream(chat, await send(chat, body, c2), c2)).text);
    const args = tool.flatMap((ch) => ch.choices[0]?.delta.tool_calls ?? []).map((t) => t.function.arguments).join('');
    expect(JSON.parse(args)).toEqual({ query: 'dogs' });
    expect(tool.at(-2)!.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('errors: a Cohere error body becomes the OpenAI error shape', async () => {
    const c = ctx(false);
    const call = await chat.request({ messages: [{ role: 'user', content: 'x' }] }, c);
    const res = await fetch(call.url, { method: 'POST', headers: call.headers, body: call.body as string }); // no auth header
    expect(res.status).toBe(401);
    expect(chat.error!(res.status, await res.json(), c)).toEqual({ error: { message: 'no api key supplied', type: 'authentication_error', param: null, code: null } });
  });

  it('embeddings: floats and base64', async () => {
    const ep = cohereAdapter.endpoints.embeddings!;
    const c = ctx(false, 'embed-v4.0');
    const res = await send(ep, { input: ['one two', 'three'] }, c);
    const json = await res.json();
    expect(ep.response!(json, c)).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', embedding: [0.7, 0, 0.5], index: 0 },
        { object: 'embedding', embedding: [0.5, 1, 0.5], index: 1 },
      ],
      model: 'embed-v4.0',
      usage: { prompt_tokens: 3, total_tokens: 3 },
    });
    const c2 = ctx(false, 'embed-v4.0');
    const b64 = ep.response!(await (await send(ep, { input: 'abcde', encoding_format: 'base64' }, c2)).json(), c2) as { data: { embedding: string }[] };
    const bytes = Uint8Array.from(atob(b64.data[0]!.embedding), (ch) => ch.charCodeAt(0));
    expect(Array.from(new Float32Array(bytes.buffer))).toEqual([0.5, 0, 0.5]);
  });

  it('rerank: ranked results with documents and search units', async () => {
    const ep = cohereAdapter.endpoints.rerank!;
    const c = ctx(false, 'rerank-v3.5');
    const res = await send(ep, { query: 'red apple', documents: ['a blue car', 'red apple pie', 'an apple'], top_n: 2, return_documents: true }, c);
    expect(ep.response!(await res.json(), c)).toMatchObject({
      object: 'list',
      model: 'rerank-v3.5',
      provider: 'cohere',
      usage: { search_units: 1 },
      results: [
        { index: 1, document: { text: 'red apple pie' } },
        { index: 2, document: { text: 'an apple' } },
      ],
    });
  });
});
