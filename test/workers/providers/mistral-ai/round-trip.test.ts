// Builds each call with the adapter, sends it with real fetch to the Mistral mock on
// 127.0.0.1 (which enforces Mistral's id and field rules), and translates the answer back.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CallContext, EndpointAdapter } from '../../../../workers/providers/contract.ts';
import { sendCall, translateStream } from '../shared/send.ts';
import { mistralAiAdapter } from '../../../../workers/providers/mistral-ai/adapter.ts';
import { startMockMistral } from '../../../support/mock-mistral.ts';
import type { MockProvider } from '../../../support/mock-provider.ts';

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockMistral();
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const ctx = (stream: boolean, model = 'mistral-small-latest'): CallContext => ({
  provider: 'mistral-ai',
  credentials: { apiKey: 'mi-rt' },
  customHost: mock.baseUrl,
  model,
  stream,
  upstream: () => Promise.reject(new Error('unused')),
  now: () => Date.now(),
});

const send = (ep: EndpointAdapter, body: Record<string, unknown>, c: CallContext) => sendCall(mistralAiAdapter, ep, body, c);

const chat = mistralAiAdapter.endpoints['chat.completions']!;

describe('mistral-ai round trip', () => {
  it('chat JSON with an OpenAI-style conversation (long tool ids, OpenAI-only fields) is accepted', async () => {
    mock.program({ path: '/v1/chat/completions', chunks: ['Done'], usage: { prompt_tokens: 20, completion_tokens: 1 } });
    const c = ctx(false);
    const res = await send(
      chat,
      {
        messages: [
          { role: 'user', content: 'Weather?' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_PTLP8xhu3uwZk4l3nlnrrJha', type: 'function', function: { name: 'weather', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'call_PTLP8xhu3uwZk4l3nlnrrJha', content: 'sunny' },
        ],
        max_completion_tokens: 100,
        seed: 1,
        user: 'someone',
        stream_options: { include_usage: true },
      },
      c,
    );
    expect(res.status).toBe(200);
    const json = await res.json();
    expect(chat.usage!(json)).toEqual({ prompt: 20, completion: 1, total: 21 });
    expect(chat.response!(json, c)).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: 'Done' }, finish_reason: 'stop' }] });
    expect(mock.requests[0]!.headers.authorization).toBe('Bearer mi-rt');
  });

  it('chat stream: usage comes from the last chunk; tool calls with tool_choice required', async () => {
    mock.program({ path: '/v1/chat/completions', chunks: ['x', 'y'], usage: { prompt_tokens: 2, completion_tokens: 2 } });
    const c = ctx(true);
    const { text, usage } = await translateStream(chat, await send(chat, { messages: [{ role: 'user', content: 'hi' }], stream: true }, c), c);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(text).toContain('"content":"x"');
    expect(usage).toEqual({ prompt: 2, completion: 2, total: 4 });

    const c2 = ctx(true);
    const body = { messages: [{ role: 'user', content: 'find' }], tools: [{ type: 'function', function: { name: 'search' } }], tool_choice: 'required' };
    const tool = await translateStream(chat, await send(chat, body, c2), c2);
    expect(tool.text).toContain('"finish_reason":"tool_calls"');
    expect(tool.text).toContain('"name":"search"');
  });

  it('errors: Mistral error bodies become the OpenAI error shape', async () => {
    const c = ctx(false);
    const call = await chat.request({ messages: [{ role: 'user', content: 'x' }] }, c);
    const res = await fetch(call.url, { method: 'POST', headers: call.headers, body: call.body as string });
    expect(res.status).toBe(401);
    expect(chat.error!(res.status, await res.json(), c)).toEqual({ error: { message: 'Unauthorized', type: 'authentication_error', param: null, code: null } });
  });

  it('embeddings and OCR', async () => {
    const emb = mistralAiAdapter.endpoints.embeddings!;
    const c = ctx(false, 'mistral-embed');
    const res = await send(emb, { input: ['abc', 'de'], user: 'u', dimensions: 2 }, c);
    expect(res.status).toBe(200);
    const json = await res.json();
    expect(emb.response!(json, c)).toMatchObject({ data: [{ embedding: [3, 0.25], index: 0 }, { embedding: [2, 0.25], index: 1 }] });
    expect(emb.usage!(json)).toEqual({ prompt: 4, completion: 0, total: 4 });

    const ocr = mistralAiAdapter.endpoints.ocr!;
    const o = await send(ocr, { document: { type: 'document_url', document_url: 'https://x.test/a.pdf' } }, ctx(false, 'mistral-ocr-latest'));
    expect(await o.json()).toMatchObject({ model: 'mistral-ocr-latest', pages: [{ index: 0, markdown: '# Page of https://x.test/a.pdf' }], usage_info: { pages_processed: 1 } });
  });
});
