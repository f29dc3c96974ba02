// Builds each call with the adapter, sends it with real fetch to the Anthropic mock on
// 127.0.0.1, and translates the real answer back (JSON and streamed).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicAdapter } from '../../../../workers/providers/anthropic/adapter.ts';
import type { CallContext, EndpointAdapter } from '../../../../workers/providers/contract.ts';
import { sendCall, translateStream } from '../shared/send.ts';
import { anthropicError, startMockAnthropic } from '../../../support/mock-anthropic.ts';
import type { MockProvider } from '../../../support/mock-provider.ts';

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockAnthropic();
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const ctx = (stream: boolean): CallContext => ({
  provider: 'anthropic',
  credentials: { apiKey: 'sk-ant-rt' },
  customHost: mock.baseUrl,
  model: 'claude-haiku-4-5',
  stream,
  upstream: () => Promise.reject(new Error('unused')),
  now: () => Date.now(),
});

const send = (ep: EndpointAdapter, body: Record<string, unknown>, c: CallContext) => sendCall(anthropicAdapter, ep, body, c);

const chunksOf = (sse: string) =>
  sse
    .split('\n\n')
    .filter((f) => f.startsWith('data: ') && f !== 'data: [DONE]')
    .map((f) => JSON.parse(f.slice(6)) as { choices: { delta: { content?: string; tool_calls?: { function: { arguments: string } }[] }; finish_reason: string | null }[]; usage?: unknown });

const chat = anthropicAdapter.endpoints['chat.completions']!;

describe('anthropic round trip', () => {
  it('chat JSON: the mock accepts the call and the answer comes back as a chat.completion', async () => {
    mock.program({ path: '/v1/messages', chunks: ['Bonjour', '!'], usage: { prompt_tokens: 8, completion_tokens: 3 } });
    const c = ctx(false);
    const res = await send(chat, { model: 'x', messages: [{ role: 'system', content: 'French.' }, { role: 'user', content: 'Hi' }] }, c);
    expect(res.status).toBe(200);
    const json = await res.json();
    expect(chat.usage!(json)).toEqual({ prompt: 8, completion: 3, total: 11, cachedPrompt: 0 });
    expect(chat.response!(json, c)).toMatchObject({
      object: 'chat.completion',
      model: 'claude-haiku-4-5',
      choices: [{ message: { role: 'assistant', content: 'Bonjour!' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 8, completion_tokens: 3, total_tokens: 11 },
    });
    const [seen] = mock.requests;
    expect(seen!.headers['x-api-key']).toBe('sk-ant-rt');
    expect(seen!.headers['anthropic-version']).toBe('2023-06-01');
    expect(seen!.json).toMatchObject({ system: 'French.', max_tokens: 4096, messages: [{ role: 'user', content: 'Hi' }] });
  });

  it('chat stream: Anthropic SSE becomes OpenAI chunks with finish_reason and a usage chunk', async () => {
    mock.program({ path: '/v1/messages', chunks: ['One', ' two'], usage: { prompt_tokens: 5, completion_tokens: 2 } });
    const c = ctx(true);
    const res = await send(chat, { messages: [{ role: 'user', content: 'Count' }], stream: true }, c);
    const { text, usage } = await translateStream(chat, res, c);
    const chunks = chunksOf(text);
    expect(chunks.map((ch) => ch.choices[0]?.delta.content ?? '').join('')).toBe('One two');
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks.at(-1)!.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 2 });
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(usage).toEqual({ prompt: 5, completion: 2, total: 7, cachedPrompt: 0 });
  });

  it('chat stream with a forced tool: arguments arrive as tool_calls deltas', async () => {
    mock.program({ path: '/v1/messages', chunks: ['cats'] });
    const c = ctx(true);
    const body = {
      messages: [{ role: 'user', content: 'Search' }],
      tools: [{ type: 'function', function: { name: 'search', parameters: { type: 'object', properties: { query: { type: 'string' } } } } }],
      tool_choice: { type: 'function', function: { name: 'search' } },
    };
    const { text } = await translateStream(chat, await send(chat, body, c), c);
    const chunks = chunksOf(text);
    const args = chunks.flatMap((ch) => ch.choices[0]?.delta.tool_calls ?? []).map((tc) => tc.function.arguments).join('');
    expect(JSON.parse(args)).toEqual({ query: 'cats' });
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('errors: an Anthropic error body becomes the OpenAI error shape', async () => {
    mock.program({ path: '/v1/messages', status: 529, body: anthropicError('overloaded_error', 'Overloaded') });
    const c = ctx(false);
    const res = await send(chat, { messages: [{ role: 'user', content: 'x' }] }, c);
    expect(res.status).toBe(529);
    expect(chat.error!(res.status, await res.json(), c)).toEqual({
      error: { message: 'Overloaded', type: 'overloaded_error', param: null, code: 'overloaded_error' },
    });
  });

  it('messages: the native stream is relayed unchanged and its usage read', async () => {
    mock.program({ path: '/v1/messages', usage: { prompt_tokens: 9, completion_tokens: 4 } });
    const ep = anthropicAdapter.endpoints.messages!;
    const c = ctx(true);
    const res = await send(ep, { model: 'x', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }], stream: true }, c);
    const raw = await res.clone().text();
    const { text, usage } = await translateStream(ep, res, c);
    expect(text).toBe(raw);
    expect(text).toContain('event: message_stop');
    expect(usage).toEqual({ prompt: 9, completion: 4, total: 13, cachedPrompt: 0 });
  });

  it('completions: JSON answer becomes a text_completion', async () => {
    mock.program({ path: '/v1/messages', chunks: ['42'] });
    const ep = anthropicAdapter.endpoints.completions!;
    const c = ctx(false);
    const res = await send(ep, { prompt: 'The answer is', max_tokens: 5 }, c);
    expect(ep.response!(await res.json(), c)).toMatchObject({ object: 'text_completion', choices: [{ text: '42', finish_reason: 'stop' }] });
  });
});
