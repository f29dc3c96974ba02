import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../src/domain/errors.ts';
import { anthropicAdapter } from '../../../../workers/providers/anthropic/adapter.ts';
import type { CallContext, EndpointAdapter, UpstreamCall } from '../../../../workers/providers/contract.ts';

const ctx = (over: Partial<CallContext> = {}): CallContext => ({
  provider: 'anthropic',
  credentials: { apiKey: 'sk-ant-test' },
  model: 'claude-sonnet-4-5',
  stream: false,
  upstream: () => Promise.reject(new Error('no upstream in unit tests')),
  now: () => 1_700_000_000_000,
  ...over,
});
const chat = anthropicAdapter.endpoints['chat.completions'] as Required<EndpointAdapter>;
const completions = anthropicAdapter.endpoints.completions as Required<EndpointAdapter>;
const messages = anthropicAdapter.endpoints.messages as EndpointAdapter;

async function build(ep: EndpointAdapter, body: Record<string, unknown>, c = ctx()): Promise<{ call: UpstreamCall; json: Record<string, unknown> }> {
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

describe('anthropic adapter: provider', () => {
  it('uses the reference base URL, x-api-key and the pinned anthropic-version', async () => {
    expect(anthropicAdapter.name).toBe('anthropic');
    expect(anthropicAdapter.baseUrl(ctx())).toBe('https://api.anthropic.com/v1');
    expect(await anthropicAdapter.authHeaders(ctx())).toEqual({ 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' });
    expect(anthropicAdapter.forwardedHeaders).toContain('anthropic-beta');
  });

  it('pass-through URLs collapse a duplicated /v1 and honour a custom host', () => {
    expect(anthropicAdapter.passThroughUrl?.('v1/messages/count_tokens', ctx())).toBe('https://api.anthropic.com/v1/messages/count_tokens');
    expect(anthropicAdapter.passThroughUrl?.('models', ctx({ customHost: 'http://h.example' }))).toBe('http://h.example/models');
  });
});

describe('anthropic chat.completions request', () => {
  it('moves system and developer messages to `system` and defaults max_tokens', async () => {
    const { call, json } = await build(chat, {
      model: 'ignored-caller-model',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'No emojis.' }] },
        { role: 'user', content: 'Hi' },
      ],
    });
    expect(call.url).toBe('https://api.anthropic.com/v1/messages');
    expect(call.method).toBe('POST');
    expect(call.headers['content-type']).toBe('application/json');
    expect(json).toEqual({
      model: 'claude-sonnet-4-5',
      system: 'Be brief.\nNo emojis.',
      messages: [{ role: 'user', content: 'Hi' }],
      max_tokens: 4096,
    });
  });

  it('keeps cache_control on system blocks and sends them as blocks', async () => {
    const { json } = await build(chat, {
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Long context', cache_control: { type: 'ephemeral' } }] },
        { role: 'user', content: 'Hi' },
      ],
    });
    expect(json.system).toEqual([{ type: 'text', text: 'Long context', cache_control: { type: 'ephemeral' } }]);
  });

  it('maps sampling fields, stop, user and max_completion_tokens; a custom host replaces the base', async () => {
    const { call, json } = await build(
      chat,
      { messages: [{ role: 'user', content: 'Hi' }], max_completion_tokens: 99, max_tokens: 5, stop: 'END', temperature: 0.2, top_p: 0.9, user: 'u-1' },
      ctx({ customHost: 'http://127.0.0.1:9', stream: true }),
    );
    expect(call.url).toBe('http://127.0.0.1:9/messages');
    expect(json).toMatchObject({ max_tokens: 99, stop_sequences: ['END'], temperature: 0.2, top_p: 0.9, metadata: { user_id: 'u-1' }, stream: true });
    const arrayStop = await build(chat, { messages: [{ role: 'user', content: 'Hi' }], stop: ['a', 'b'], max_tokens: 7 });
    expect(arrayStop.json).toMatchObject({ stop_sequences: ['a', 'b'], max_tokens: 7 });
    expect(arrayStop.json).not.toHaveProperty('stream');
  });

  it('turns images into base64 or url sources', async () => {
    const { json } = await build(chat, {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
          ],
        },
      ],
    });
    expect(json.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
        ],
      },
    ]);
  });

  it('maps tools, tool calls and tool results; parallel results share one user turn', async () => {
    const { json } = await build(chat, {
      messages: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_2', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
        { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: 'rainy' }] },
      ],
      tools: [{ type: 'function', function: { name: 'weather', description: 'Weather by city', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
      tool_choice: 'required',
    });
    expect(json.tools).toEqual([{ name: 'weather', description: 'Weather by city', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }]);
    expect(json.tool_choice).toEqual({ type: 'any' });
    expect(json.messages).toEqual([
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'call_1', name: 'weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'call_2', name: 'weather', input: { city: 'Rome' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: 'sunny' },
          { type: 'tool_result', tool_use_id: 'call_2', content: [{ type: 'text', text: 'rainy' }] },
        ],
      },
    ]);
  });

  it('maps every tool_choice form and parallel_tool_calls: false', async () => {
    const tools = [{ type: 'function', function: { name: 'f' } }];
    const m = [{ role: 'user', content: 'x' }];
    const choice = async (tool_choice: unknown, extra: Record<string, unknown> = {}) =>
      (await build(chat, { messages: m, tools, tool_choice, ...extra })).json.tool_choice;
    expect(await choice('auto')).toEqual({ type: 'auto' });
    expect(await choice('none')).toEqual({ type: 'none' });
    expect(await choice({ type: 'function', function: { name: 'f' } })).toEqual({ type: 'tool', name: 'f' });
    expect(await choice(undefined, { parallel_tool_calls: false })).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect((await build(chat, { messages: m, tools })).json.tools).toEqual([{ name: 'f', input_schema: { type: 'object', properties: {} } }]);
  });

  it('rejects what Anthropic cannot take, naming the field', () => {
    const bad = catchError(() =>
      chat.request({ messages: [{ role: 'assistant', content: '', tool_calls: [{ id: 'c', function: { name: 'f', arguments: '{oops' } }] }] }, ctx()),
    );
    expect(bad.status).toBe(400);
    expect(bad.param).toBe('messages[0].tool_calls[0].function.arguments');
    expect(catchError(() => chat.request({ messages: [{ role: 'user', content: [{ type: 'input_audio' }] }] }, ctx())).param).toBe('messages[0].content[0].type');
    expect(catchError(() => chat.request({ messages: 'hi' }, ctx())).param).toBe('messages');
  });
});

describe('anthropic chat.completions response, usage and errors', () => {
  const message = {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5-20250929',
    content: [
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } },
    ],
    stop_reason: 'tool_use',
    usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 },
  };

  it('builds a chat.completion with tool calls, finish_reason and cached tokens', () => {
    expect(chat.response(message, ctx())).toEqual({
      id: 'msg_1',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'claude-sonnet-4-5-20250929',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Let me look.',
            tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }],
          },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 130, completion_tokens: 5, total_tokens: 135, prompt_tokens_details: { cached_tokens: 100 } },
    });
    expect(chat.usage(message)).toEqual({ prompt: 130, completion: 5, total: 135, cachedPrompt: 100 });
  });

  it('maps stop reasons', () => {
    const reason = (stop_reason: string) =>
      (chat.response({ ...message, content: [{ type: 'text', text: 'x' }], stop_reason }, ctx()) as { choices: { finish_reason: string }[] }).choices[0]!.finish_reason;
    expect(reason('end_turn')).toBe('stop');
    expect(reason('stop_sequence')).toBe('stop');
    expect(reason('max_tokens')).toBe('length');
    expect(reason('refusal')).toBe('content_filter');
  });

  it('content is null when the answer is only tool calls; usage null without usage', () => {
    const out = chat.response({ ...message, content: [message.content[1]] }, ctx()) as { choices: { message: { content: unknown } }[] };
    expect(out.choices[0]!.message.content).toBeNull();
    expect(chat.usage({ id: 'x' })).toBeNull();
  });

  it('turns Anthropic errors into the OpenAI error shape', () => {
    expect(chat.error(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, ctx())).toEqual({
      error: { message: 'Overloaded', type: 'overloaded_error', param: null, code: 'overloaded_error' },
    });
    expect(chat.error(429, 'not json', ctx())).toEqual({
      error: { message: 'Anthropic error (HTTP 429)', type: 'rate_limit_error', param: null, code: 'rate_limit_error' },
    });
  });
});

// ---------------------------------------------------------------------------
// Streams

const enc = new TextEncoder();
const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** Feeds `text` in pieces of `size` bytes (splitting UTF-8 characters and frames). */
function feed(t: { push(c: Uint8Array): string; end(): string }, text: string, size: number): string {
  const bytes = enc.encode(text);
  let out = '';
  for (let i = 0; i < bytes.length; i += size) out += t.push(bytes.slice(i, i + size));
  return out + t.end();
}

const frames = (sse: string): unknown[] =>
  sse
    .split('\n\n')
    .filter((f) => f.startsWith('data: '))
    .map((f) => f.slice(6))
    .map((d) => (d === '[DONE]' ? d : JSON.parse(d)));

const textStream =
  event('message_start', { message: { id: 'msg_s', model: 'claude-x', content: [], usage: { input_tokens: 12, output_tokens: 1, cache_read_input_tokens: 3 } } }) +
  event('ping', {}) +
  event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
  event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Grüße ' } }) +
  event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: '🌍!' } }) +
  event('content_block_stop', { index: 0 }) +
  event('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 9 } }) +
  event('message_stop', {});

describe('anthropic chat.completions stream', () => {
  it('translates events to chat.completion.chunk SSE, whatever the byte splits', () => {
    for (const size of [1, 3, 7, 10_000]) {
      const t = chat.stream(ctx({ stream: true }));
      expect(t.usage).toBeNull();
      const out = feed(t, textStream.replaceAll('\n', size === 3 ? '\r\n' : '\n'), size);
      expect(out.endsWith('data: [DONE]\n\n')).toBe(true);
      const base = { id: 'msg_s', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'claude-x' };
      expect(frames(out)).toEqual([
        { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null, logprobs: null }] },
        { ...base, choices: [{ index: 0, delta: { content: 'Grüße ' }, finish_reason: null, logprobs: null }] },
        { ...base, choices: [{ index: 0, delta: { content: '🌍!' }, finish_reason: null, logprobs: null }] },
        { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop', logprobs: null }] },
        { ...base, choices: [], usage: { prompt_tokens: 15, completion_tokens: 9, total_tokens: 24, prompt_tokens_details: { cached_tokens: 3 } } },
        '[DONE]',
      ]);
      expect(t.usage).toEqual({ prompt: 15, completion: 9, total: 24, cachedPrompt: 3 });
    }
  });

  it('streams tool calls as tool_calls deltas with input_json_delta arguments', () => {
    const sse =
      event('message_start', { message: { id: 'msg_t', model: 'claude-x', usage: { input_tokens: 4, output_tokens: 1 } } }) +
      event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
      event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Sure.' } }) +
      event('content_block_stop', { index: 0 }) +
      event('content_block_start', { index: 1, content_block: { type: 'tool_use', id: 'toolu_9', name: 'weather', input: {} } }) +
      event('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '' } }) +
      event('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '{"city":' } }) +
      event('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '"Paris"}' } }) +
      event('content_block_stop', { index: 1 }) +
      event('message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 20 } }) +
      event('message_stop', {});
    const out = frames(feed(chat.stream(ctx()), sse, 5)) as { choices: { delta: Record<string, unknown>; finish_reason: string | null }[] }[];
    const deltas = out.slice(0, -2).map((c) => c.choices[0]);
    expect(deltas).toEqual([
      { index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null, logprobs: null },
      { index: 0, delta: { content: 'Sure.' }, finish_reason: null, logprobs: null },
      { index: 0, delta: { tool_calls: [{ index: 0, id: 'toolu_9', type: 'function', function: { name: 'weather', arguments: '' } }] }, finish_reason: null, logprobs: null },
      { index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }, finish_reason: null, logprobs: null },
      { index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }, finish_reason: null, logprobs: null },
      { index: 0, delta: {}, finish_reason: 'tool_calls', logprobs: null },
    ]);
  });

  it('turns an error event into an OpenAI error frame and still ends with [DONE]', () => {
    const sse =
      event('message_start', { message: { id: 'm', usage: { input_tokens: 2, output_tokens: 0 } } }) +
      event('error', { error: { type: 'overloaded_error', message: 'Overloaded' } });
    const out = frames(feed(chat.stream(ctx()), sse, 4));
    expect(out.slice(1)).toEqual([{ error: { message: 'Overloaded', type: 'overloaded_error', param: null, code: 'overloaded_error' } }, '[DONE]']);
  });
});

describe('anthropic messages (native) endpoint', () => {
  it('sends the caller body unchanged but for the routed model', async () => {
    const body = { model: 'x', max_tokens: 10, system: [{ type: 'text', text: 's' }], messages: [{ role: 'user', content: 'hi' }], stream: true };
    const { call, json } = await build(messages, body, ctx({ stream: true }));
    expect(call.url).toBe('https://api.anthropic.com/v1/messages');
    expect(json).toEqual({ ...body, model: 'claude-sonnet-4-5' });
    expect(messages.response).toBeUndefined();
    expect(messages.error).toBeUndefined();
  });

  it('relays the stream byte for byte and reads its usage', () => {
    for (const size of [1, 2, 9, 10_000]) {
      const t = messages.stream!(ctx({ stream: true }));
      expect(feed(t, textStream, size)).toBe(textStream);
      expect(t.usage).toEqual({ prompt: 15, completion: 9, total: 24, cachedPrompt: 3 });
    }
  });

  it('reads usage from the JSON answer', () => {
    expect(messages.usage!({ usage: { input_tokens: 3, output_tokens: 4 } })).toEqual({ prompt: 3, completion: 4, total: 7 });
  });
});

describe('anthropic completions', () => {
  it('sends the prompt as one user turn and answers a text_completion', async () => {
    const { json } = await build(completions, { model: 'm', prompt: 'Say hi', max_tokens: 16, stop: ['\n'] });
    expect(json).toEqual({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'Say hi' }], max_tokens: 16, stop_sequences: ['\n'] });
    expect(catchError(() => completions.request({ prompt: ['a', 'b'] }, ctx())).param).toBe('prompt');
    expect(
      completions.response({ id: 'msg_c', model: 'claude-x', content: [{ type: 'text', text: 'hi' }], stop_reason: 'max_tokens', usage: { input_tokens: 2, output_tokens: 1 } }, ctx()),
    ).toEqual({
      id: 'msg_c',
      object: 'text_completion',
      created: 1_700_000_000,
      model: 'claude-x',
      choices: [{ text: 'hi', index: 0, logprobs: null, finish_reason: 'length' }],
      usage: { prompt_tokens: 2, completion_tokens: 1, total_tokens: 3 },
    });
  });

  it('streams text_completion chunks', () => {
    const out = frames(feed(completions.stream(ctx()), textStream, 6)) as { object: string; choices: unknown[] }[];
    expect(out.slice(0, 3).map((c) => c.choices[0])).toEqual([
      { index: 0, text: 'Grüße ', finish_reason: null, logprobs: null },
      { index: 0, text: '🌍!', finish_reason: null, logprobs: null },
      { index: 0, text: '', finish_reason: 'stop', logprobs: null },
    ]);
    expect(out[0]!.object).toBe('text_completion');
  });
});
