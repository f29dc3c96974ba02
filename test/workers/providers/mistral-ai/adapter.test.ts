import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../src/domain/errors.ts';
import { mistralAiAdapter } from '../../../../workers/providers/mistral-ai/adapter.ts';
import { mistralToolCallId } from '../../../../workers/providers/mistral-ai/tool-call-id.ts';
import type { CallContext, EndpointAdapter } from '../../../../workers/providers/contract.ts';

const ctx = (over: Partial<CallContext> = {}): CallContext => ({
  provider: 'mistral-ai',
  credentials: { apiKey: 'mi-test' },
  model: 'mistral-large-latest',
  stream: false,
  upstream: () => Promise.reject(new Error('no upstream in unit tests')),
  now: () => 1_700_000_000_000,
  ...over,
});
const chat = mistralAiAdapter.endpoints['chat.completions'] as Required<EndpointAdapter>;
const embeddings = mistralAiAdapter.endpoints.embeddings as Required<EndpointAdapter>;
const ocr = mistralAiAdapter.endpoints.ocr as EndpointAdapter;

async function build(ep: EndpointAdapter, body: Record<string, unknown>, c = ctx()) {
  const call = await ep.request(body, c);
  return { call, json: JSON.parse(call.body as string) as Record<string, unknown> };
}
async function rejection(p: () => unknown): Promise<AppError> {
  try {
    await p();
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected an AppError');
}

describe('mistral-ai adapter: provider', () => {
  it('uses the reference base URL and bearer auth', async () => {
    expect(mistralAiAdapter.name).toBe('mistral-ai');
    expect(mistralAiAdapter.baseUrl(ctx())).toBe('https://api.mistral.ai/v1');
    expect(await mistralAiAdapter.authHeaders(ctx())).toEqual({ authorization: 'Bearer mi-test' });
  });
});

describe('mistral chat request', () => {
  it('renames max_completion_tokens and seed, maps required to any, drops OpenAI-only fields, keeps safe_prompt', async () => {
    const { call, json } = await build(
      chat,
      {
        model: 'caller',
        messages: [{ role: 'user', content: 'Hi' }],
        max_completion_tokens: 64,
        seed: 42,
        user: 'u1',
        logprobs: true,
        stream_options: { include_usage: true },
        store: true,
        temperature: 0.1,
        tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
        tool_choice: 'required',
        safe_prompt: true,
        stream: true,
      },
      ctx({ stream: true, customHost: 'http://127.0.0.1:9/v1' }),
    );
    expect(call.url).toBe('http://127.0.0.1:9/v1/chat/completions');
    expect(json).toEqual({
      model: 'mistral-large-latest',
      messages: [{ role: 'user', content: 'Hi' }],
      max_tokens: 64,
      random_seed: 42,
      temperature: 0.1,
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      tool_choice: 'any',
      safe_prompt: true,
      stream: true,
    });
    expect((await build(chat, { messages: [], max_tokens: 5, stream: true })).json).toEqual({ model: 'mistral-large-latest', messages: [], max_tokens: 5 });
  });

  it('maps tool call ids to 9 alphanumerics, the same on the call and its result', async () => {
    const { json } = await build(chat, {
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_PTLP8xhu3uwZk4l3nlnrrJha', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'call_PTLP8xhu3uwZk4l3nlnrrJha', content: 'ok' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'D681PevKs', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'D681PevKs', content: 'ok' },
      ],
    });
    const msgs = json.messages as { tool_calls?: { id: string }[]; tool_call_id?: string }[];
    const mapped = msgs[1]!.tool_calls![0]!.id;
    expect(mapped).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(msgs[2]!.tool_call_id).toBe(mapped);
    expect(msgs[3]!.tool_calls![0]!.id).toBe('D681PevKs');
    expect(msgs[4]!.tool_call_id).toBe('D681PevKs');
    expect(await mistralToolCallId('call_a')).not.toBe(await mistralToolCallId('call_b'));
  });

  it('rejects a body without messages', async () => {
    expect((await rejection(() => chat.request({}, ctx()))).param).toBe('messages');
  });
});

describe('mistral chat response, usage and errors', () => {
  it('normalises finish reasons and content lists, keeps the rest', () => {
    const out = chat.response(
      {
        id: 'm1',
        object: 'chat.completion',
        created: 1,
        model: 'magistral-medium',
        choices: [{ index: 0, message: { role: 'assistant', content: [{ type: 'thinking', thinking: [] }, { type: 'text', text: 'Answer' }] }, finish_reason: 'model_length' }],
        usage: { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 },
      },
      ctx(),
    );
    expect(out).toEqual({
      id: 'm1',
      object: 'chat.completion',
      created: 1,
      model: 'magistral-medium',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Answer' }, finish_reason: 'length' }],
      usage: { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 },
    });
    expect(chat.usage({ usage: { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 } })).toEqual({ prompt: 5, completion: 6, total: 11 });
    expect(chat.usage({})).toBeNull();
  });

  it('turns Mistral errors into the OpenAI error shape', () => {
    expect(chat.error(400, { object: 'error', message: 'Tool call id was x', type: 'invalid_function_call', param: null, code: '3280' }, ctx())).toEqual({
      error: { message: 'Tool call id was x', type: 'invalid_function_call', param: null, code: '3280' },
    });
    expect(chat.error(401, { message: 'Unauthorized', request_id: 'r' }, ctx())).toEqual({
      error: { message: 'Unauthorized', type: 'authentication_error', param: null, code: null },
    });
    const detail = chat.error(422, { object: 'error', message: { detail: [{ msg: 'Extra inputs are not permitted' }] }, type: 'invalid_request_message_error' }, ctx()) as { error: { message: string } };
    expect(detail.error.message).toContain('Extra inputs are not permitted');
    expect(chat.error(503, 'x', ctx())).toEqual({ error: { message: 'Mistral error (HTTP 503)', type: 'server_error', param: null, code: null } });
  });
});

const enc = new TextEncoder();
function feed(t: { push(c: Uint8Array): string; end(): string }, text: string, size: number): string {
  const bytes = enc.encode(text);
  let out = '';
  for (let i = 0; i < bytes.length; i += size) out += t.push(bytes.slice(i, i + size));
  return out + t.end();
}

describe('mistral chat stream', () => {
  it('relays chunks, reads the usage on the last one, normalises, and ends with one [DONE]', () => {
    const chunk = (choice: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id: 's1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, ...choice }], ...extra })}\n\n`;
    const sse =
      chunk({ delta: { role: 'assistant', content: '' }, finish_reason: null }) +
      chunk({ delta: { content: 'Ça va 👍' }, finish_reason: null }) +
      chunk({ delta: { content: '' }, finish_reason: 'model_length' }, { usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } }) +
      'data: [DONE]\n\n';
    for (const size of [1, 5, 10_000]) {
      const t = chat.stream(ctx({ stream: true }));
      const out = feed(t, sse, size);
      expect(out).toBe(sse.replace('"model_length"', '"length"'));
      expect(out.match(/\[DONE\]/g)).toHaveLength(1);
      expect(t.usage).toEqual({ prompt: 3, completion: 4, total: 7 });
    }
  });

  it('turns an error frame into the OpenAI error shape', () => {
    const out = feed(chat.stream(ctx()), `data: ${JSON.stringify({ object: 'error', message: 'boom', type: 'internal_error', code: '1000' })}\n\n`, 7);
    expect(out).toBe(`data: ${JSON.stringify({ error: { message: 'boom', type: 'internal_error', param: null, code: '1000' } })}\n\ndata: [DONE]\n\n`);
  });
});

describe('mistral embeddings and OCR', () => {
  it('embeddings: dimensions -> output_dimension, user dropped, floats relayed or packed as base64', async () => {
    const c = ctx({ model: 'mistral-embed' });
    const { call, json } = await build(embeddings, { model: 'x', input: ['a'], dimensions: 2, user: 'u', encoding_format: 'base64' }, c);
    expect(call.url).toBe('https://api.mistral.ai/v1/embeddings');
    expect(json).toEqual({ model: 'mistral-embed', input: ['a'], output_dimension: 2 });
    const answer = { object: 'list', data: [{ object: 'embedding', embedding: [1.5, -2], index: 0 }], model: 'mistral-embed', usage: { prompt_tokens: 2, total_tokens: 2 } };
    const packed = embeddings.response(answer, c) as { data: { embedding: string }[] };
    const bytes = Uint8Array.from(atob(packed.data[0]!.embedding), (ch) => ch.charCodeAt(0));
    expect(Array.from(new Float32Array(bytes.buffer))).toEqual([1.5, -2]);
    const c2 = ctx();
    await embeddings.request({ input: 'a' }, c2);
    expect(embeddings.response(answer, c2)).toEqual(answer);
    expect(embeddings.usage(answer)).toEqual({ prompt: 2, completion: 0, total: 2 });
    expect((await rejection(() => embeddings.request({ input: 'a', encoding_format: 'int8' }, ctx()))).param).toBe('encoding_format');
  });

  it('ocr: the body goes to /v1/ocr with the routed model; answers are relayed', async () => {
    const { call, json } = await build(ocr, { model: 'x', document: { type: 'document_url', document_url: 'https://arxiv.org/pdf/1.pdf' }, include_image_base64: true }, ctx({ model: 'mistral-ocr-latest' }));
    expect(call.url).toBe('https://api.mistral.ai/v1/ocr');
    expect(json).toEqual({ model: 'mistral-ocr-latest', document: { type: 'document_url', document_url: 'https://arxiv.org/pdf/1.pdf' }, include_image_base64: true });
    expect(ocr.response).toBeUndefined();
    expect((await rejection(() => ocr.request({ model: 'x' }, ctx()))).param).toBe('document');
  });
});
