import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../src/domain/errors.ts';
import { cohereAdapter } from '../../../../workers/providers/cohere/adapter.ts';
import type { CallContext, EndpointAdapter } from '../../../../workers/providers/contract.ts';

const ctx = (over: Partial<CallContext> = {}): CallContext => ({
  provider: 'cohere',
  credentials: { apiKey: 'co-test' },
  model: 'command-a-03-2025',
  stream: false,
  upstream: () => Promise.reject(new Error('no upstream in unit tests')),
  now: () => 1_700_000_000_000,
  ...over,
});
const chat = cohereAdapter.endpoints['chat.completions'] as Required<EndpointAdapter>;
const embeddings = cohereAdapter.endpoints.embeddings as Required<EndpointAdapter>;
const rerank = cohereAdapter.endpoints.rerank as Required<EndpointAdapter>;

async function build(ep: EndpointAdapter, body: Record<string, unknown>, c = ctx()) {
  const call = await ep.request(body, c);
  return { call, json: JSON.parse(call.body as string) as Record<string, unknown> };
}
function catchError(fn: () => unknown): AppError {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected an AppError');
}

describe('cohere adapter: provider', () => {
  it('uses the reference base URL and bearer auth', async () => {
    expect(cohereAdapter.name).toBe('cohere');
    expect(cohereAdapter.baseUrl(ctx())).toBe('https://api.cohere.ai');
    expect(await cohereAdapter.authHeaders(ctx())).toEqual({ authorization: 'Bearer co-test' });
  });
});

describe('cohere chat request', () => {
  it('maps messages, sampling fields and stop to the v2 chat body', async () => {
    const { call, json } = await build(chat, {
      model: 'caller-model',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: 'https://x.test/a.png' } }] },
      ],
      max_tokens: 50,
      stop: 'END',
      temperature: 0.3,
      top_p: 0.8,
      seed: 7,
      frequency_penalty: 0.1,
      presence_penalty: 0.2,
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } },
      safety_mode: 'STRICT',
    });
    expect(call.url).toBe('https://api.cohere.ai/v2/chat');
    expect(call.headers['content-type']).toBe('application/json');
    expect(json).toEqual({
      model: 'command-a-03-2025',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: 'https://x.test/a.png' } }] },
      ],
      stream: false,
      max_tokens: 50,
      stop_sequences: ['END'],
      temperature: 0.3,
      p: 0.8,
      seed: 7,
      frequency_penalty: 0.1,
      presence_penalty: 0.2,
      response_format: { type: 'json_object', json_schema: { type: 'object' } },
      safety_mode: 'STRICT',
    });
  });

  it('maps tools, tool calls (text as tool_plan) and tool results; tool_choice forms', async () => {
    const tools = [
      { type: 'function', function: { name: 'weather', description: 'w', parameters: { type: 'object' } } },
      { type: 'function', function: { name: 'time' } },
    ];
    const { json } = await build(
      chat,
      {
        messages: [
          { role: 'user', content: 'Weather?' },
          { role: 'assistant', content: 'Let me check.', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }] },
          { role: 'tool', tool_call_id: 'call_1', content: 'cold' },
        ],
        tools,
        tool_choice: 'required',
      },
      ctx({ stream: true }),
    );
    expect(json.messages).toEqual([
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }], tool_plan: 'Let me check.' },
      { role: 'tool', tool_call_id: 'call_1', content: 'cold' },
    ]);
    expect(json.tools).toEqual([
      { type: 'function', function: { name: 'weather', description: 'w', parameters: { type: 'object' } } },
      { type: 'function', function: { name: 'time' } },
    ]);
    expect(json.tool_choice).toBe('REQUIRED');
    expect(json.stream).toBe(true);
    const m = [{ role: 'user', content: 'x' }];
    expect((await build(chat, { messages: m, tools, tool_choice: 'none' })).json.tool_choice).toBe('NONE');
    expect((await build(chat, { messages: m, tools, tool_choice: 'auto' })).json).not.toHaveProperty('tool_choice');
    const forced = (await build(chat, { messages: m, tools, tool_choice: { type: 'function', function: { name: 'time' } } })).json;
    expect(forced.tools).toEqual([{ type: 'function', function: { name: 'time' } }]);
    expect(forced.tool_choice).toBe('REQUIRED');
  });

  it('rejects what Cohere cannot take, naming the field', () => {
    expect(catchError(() => chat.request({ messages: [{ role: 'user', content: [{ type: 'input_audio' }] }] }, ctx())).param).toBe('messages[0].content[0].type');
    expect(catchError(() => chat.request({ messages: [{ role: 'tool', content: 'x' }] }, ctx())).param).toBe('messages[0].tool_call_id');
    expect(catchError(() => chat.request({ messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function', function: { name: 'a' } }], tool_choice: { type: 'function', function: { name: 'b' } } }, ctx())).param).toBe('tool_choice.function.name');
  });
});

describe('cohere chat response, usage and errors', () => {
  const answer = {
    id: 'c-1',
    finish_reason: 'TOOL_CALL',
    message: { role: 'assistant', tool_plan: 'plan', tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }] },
    usage: { billed_units: { input_tokens: 10, output_tokens: 4 }, tokens: { input_tokens: 200, output_tokens: 4 } },
  };

  it('builds a chat.completion with tool calls and billed usage', () => {
    expect(chat.response(answer, ctx())).toEqual({
      id: 'c-1',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'command-a-03-2025',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }] },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 },
    });
    expect(chat.usage(answer)).toEqual({ prompt: 10, completion: 4, total: 14 });
    expect(chat.usage({ usage: { tokens: { input_tokens: 3, output_tokens: 2 } } })).toEqual({ prompt: 3, completion: 2, total: 5 });
    expect(chat.usage({})).toBeNull();
  });

  it('maps finish reasons and text content', () => {
    const reason = (finish_reason: string) =>
      (chat.response({ id: 'x', finish_reason, message: { content: [{ type: 'text', text: 'hi' }] } }, ctx()) as { choices: { finish_reason: string; message: { content: string } }[] }).choices[0]!;
    expect(reason('COMPLETE')).toMatchObject({ finish_reason: 'stop', message: { content: 'hi' } });
    expect(reason('STOP_SEQUENCE').finish_reason).toBe('stop');
    expect(reason('MAX_TOKENS').finish_reason).toBe('length');
    expect(reason('ERROR_TOXIC').finish_reason).toBe('content_filter');
  });

  it('turns Cohere errors into the OpenAI error shape', () => {
    expect(chat.error(400, { id: 'e', message: 'invalid request: model not found' }, ctx())).toEqual({
      error: { message: 'invalid request: model not found', type: 'invalid_request_error', param: null, code: null },
    });
    expect(chat.error(429, null, ctx())).toEqual({ error: { message: 'Cohere error (HTTP 429)', type: 'rate_limit_error', param: null, code: null } });
    expect((chat.error(401, { message: 'no api key' }, ctx()) as { error: { type: string } }).error.type).toBe('authentication_error');
  });
});

const enc = new TextEncoder();
const ev = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
function feed(t: { push(c: Uint8Array): string; end(): string }, text: string, size: number): string {
  const bytes = enc.encode(text);
  let out = '';
  for (let i = 0; i < bytes.length; i += size) out += t.push(bytes.slice(i, i + size));
  return out + t.end();
}
const frames = (sse: string) =>
  sse
    .split('\n\n')
    .filter((f) => f.startsWith('data: '))
    .map((f) => f.slice(6))
    .map((d) => (d === '[DONE]' ? d : JSON.parse(d)));

describe('cohere chat stream', () => {
  it('translates text events to chunks, finish_reason and a usage chunk, whatever the splits', () => {
    const sse =
      ev('message-start', { id: 'c-s', delta: { message: { role: 'assistant' } } }) +
      ev('content-start', { index: 0, delta: { message: { content: { type: 'text', text: '' } } } }) +
      ev('content-delta', { index: 0, delta: { message: { content: { text: 'Héllo ' } } } }) +
      ev('content-delta', { index: 0, delta: { message: { content: { text: '🌍' } } } }) +
      ev('content-end', { index: 0 }) +
      ev('message-end', { delta: { finish_reason: 'MAX_TOKENS', usage: { billed_units: { input_tokens: 6, output_tokens: 2 } } } });
    for (const size of [1, 4, 10_000]) {
      const t = chat.stream(ctx({ stream: true }));
      const base = { id: 'c-s', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'command-a-03-2025' };
      expect(frames(feed(t, sse, size))).toEqual([
        { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] },
        { ...base, choices: [{ index: 0, delta: { content: 'Héllo ' }, logprobs: null, finish_reason: null }] },
        { ...base, choices: [{ index: 0, delta: { content: '🌍' }, logprobs: null, finish_reason: null }] },
        { ...base, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'length' }] },
        { ...base, choices: [], usage: { prompt_tokens: 6, completion_tokens: 2, total_tokens: 8 } },
        '[DONE]',
      ]);
      expect(t.usage).toEqual({ prompt: 6, completion: 2, total: 8 });
    }
  });

  it('streams tool calls; tool-plan deltas are dropped', () => {
    const sse =
      ev('message-start', { id: 'c-t', delta: { message: { role: 'assistant' } } }) +
      ev('tool-plan-delta', { delta: { message: { tool_plan: 'plan' } } }) +
      ev('tool-call-start', { index: 0, delta: { message: { tool_calls: { id: 'call_a', type: 'function', function: { name: 'f', arguments: '' } } } } }) +
      ev('tool-call-delta', { index: 0, delta: { message: { tool_calls: { function: { arguments: '{"a":' } } } } }) +
      ev('tool-call-delta', { index: 0, delta: { message: { tool_calls: { function: { arguments: '1}' } } } } }) +
      ev('tool-call-end', { index: 0 }) +
      ev('message-end', { delta: { finish_reason: 'TOOL_CALL', usage: { billed_units: { input_tokens: 1, output_tokens: 1 } } } });
    const out = frames(feed(chat.stream(ctx()), sse, 3)) as { choices: { delta: unknown; finish_reason: string | null }[] }[];
    expect(out.slice(1, 5).map((c) => [c.choices[0]!.delta, c.choices[0]!.finish_reason])).toEqual([
      [{ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '' } }] }, null],
      [{ tool_calls: [{ index: 0, function: { arguments: '{"a":' } }] }, null],
      [{ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }, null],
      [{}, 'tool_calls'],
    ]);
  });
});

describe('cohere embeddings', () => {
  it('sends texts with the default input_type and answers the OpenAI list', async () => {
    const c = ctx();
    const { call, json } = await build(embeddings, { model: 'x', input: 'hello', dimensions: 256 }, c);
    expect(call.url).toBe('https://api.cohere.ai/v2/embed');
    expect(json).toEqual({ model: 'command-a-03-2025', texts: ['hello'], input_type: 'search_document', embedding_types: ['float'], output_dimension: 256 });
    expect((await build(embeddings, { input: ['a', 'b'], input_type: 'search_query' })).json).toMatchObject({ texts: ['a', 'b'], input_type: 'search_query' });
    const answer = { id: 'e', embeddings: { float: [[0.5, -1]] }, meta: { billed_units: { input_tokens: 3 } } };
    expect(embeddings.response(answer, c)).toEqual({
      object: 'list',
      data: [{ object: 'embedding', embedding: [0.5, -1], index: 0 }],
      model: 'command-a-03-2025',
      usage: { prompt_tokens: 3, total_tokens: 3 },
    });
    expect(embeddings.usage(answer)).toEqual({ prompt: 3, completion: 0, total: 3 });
  });

  it('packs floats as little-endian float32 base64 when the caller asks for base64', async () => {
    const c = ctx();
    await embeddings.request({ input: 'x', encoding_format: 'base64' }, c);
    const out = embeddings.response({ embeddings: { float: [[1, -2.5]] } }, c) as { data: { embedding: string }[] };
    const bytes = Uint8Array.from(atob(out.data[0]!.embedding), (ch) => ch.charCodeAt(0));
    expect(Array.from(new Float32Array(bytes.buffer))).toEqual([1, -2.5]);
  });

  it('rejects token arrays and unknown encodings', () => {
    expect(catchError(() => embeddings.request({ input: [[1, 2]] }, ctx())).param).toBe('input');
    expect(catchError(() => embeddings.request({ input: 'x', encoding_format: 'int8' }, ctx())).param).toBe('encoding_format');
  });
});

describe('cohere rerank', () => {
  it('forwards extras, drops other providers fields, and answers the spec rerank result', async () => {
    const c = ctx({ model: 'rerank-v3.5' });
    const { call, json } = await build(
      rerank,
      { model: 'x', query: 'q', documents: ['a', { text: 'b' }], top_n: 1, return_documents: true, max_tokens_per_doc: 512, priority: 1, max_chunks_per_doc: 3 },
      c,
    );
    expect(call.url).toBe('https://api.cohere.ai/v2/rerank');
    expect(json).toEqual({ model: 'rerank-v3.5', documents: ['a', 'b'], query: 'q', top_n: 1, max_tokens_per_doc: 512, max_chunks_per_doc: 3 });
    expect(rerank.response({ id: 'r1', results: [{ index: 1, relevance_score: 0.9 }], meta: { billed_units: { search_units: 1 } } }, c)).toEqual({
      object: 'list',
      results: [{ index: 1, relevance_score: 0.9, document: { text: 'b' } }],
      model: 'rerank-v3.5',
      id: 'r1',
      usage: { search_units: 1 },
      provider: 'cohere',
    });
    expect(rerank.usage({})).toBeNull();
  });

  it('leaves documents out unless asked; validates query and documents', async () => {
    const c = ctx();
    await rerank.request({ query: 'q', documents: ['a'] }, c);
    expect((rerank.response({ results: [{ index: 0, relevance_score: 0.1 }] }, c) as { results: unknown[] }).results).toEqual([{ index: 0, relevance_score: 0.1 }]);
    expect(catchError(() => rerank.request({ documents: [] }, ctx())).param).toBe('query');
    expect(catchError(() => rerank.request({ query: 'q', documents: [1] }, ctx())).param).toBe('documents[0]');
  });
});
