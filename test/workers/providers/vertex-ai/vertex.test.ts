import { describe, expect, it } from 'vitest';
import type { CallContext, UpstreamCall } from '../../../../workers/providers/contract.ts';
import { vertexAiAdapter } from '../../../../workers/providers/vertex-ai/adapter.ts';
import { vertexModel } from '../../../../workers/providers/vertex-ai/routing.ts';
import { collectChunks, context, pushBytewise, sseData } from '../google/round-trip.ts';

const NOW = Date.UTC(2026, 5, 1);
const creds = { vertexProjectId: 'my-proj', vertexRegion: 'europe-west4', accessToken: 'ya29.held' };
const ctx = (model: string, over: Partial<CallContext> = {}): CallContext => context({ provider: 'vertex-ai', model, credentials: creds, now: () => NOW, ...over });
const chat = vertexAiAdapter.endpoints['chat.completions']!;
const messages = vertexAiAdapter.endpoints.messages!;
const embeddings = vertexAiAdapter.endpoints.embeddings!;
const bodyOf = (call: UpstreamCall): Record<string, unknown> => JSON.parse(call.body as string) as Record<string, unknown>;
const enc = new TextEncoder();
const CLAUDE = 'claude-3-5-sonnet-v2@20241022';

describe('vertex-ai routing', () => {
  it('uses the regional host, or the global one', () => {
    expect(vertexAiAdapter.baseUrl(ctx('gemini-2.0-flash'))).toBe('https://europe-west4-aiplatform.googleapis.com');
    expect(vertexAiAdapter.baseUrl(ctx('x', { credentials: { vertexRegion: 'global' } }))).toBe('https://aiplatform.googleapis.com');
    expect(vertexAiAdapter.baseUrl(ctx('x', { credentials: {} }))).toBe('https://us-central1-aiplatform.googleapis.com');
  });

  it('picks the publisher from the model', () => {
    expect(vertexModel('gemini-1.5-pro')).toEqual({ publisher: 'google', model: 'gemini-1.5-pro' });
    expect(vertexModel(CLAUDE)).toEqual({ publisher: 'anthropic', model: CLAUDE });
    expect(vertexModel('anthropic.claude-3-haiku@20240307')).toEqual({ publisher: 'anthropic', model: 'claude-3-haiku@20240307' });
    expect(vertexModel('google.gemini-2.0-flash')).toEqual({ publisher: 'google', model: 'gemini-2.0-flash' });
  });

  it('builds publisher model URLs for Gemini (JSON, SSE) and Claude (rawPredict, streamRawPredict)', async () => {
    const base = 'https://europe-west4-aiplatform.googleapis.com/v1/projects/my-proj/locations/europe-west4/publishers';
    const m = { messages: [{ role: 'user', content: 'hi' }] };
    expect((await chat.request(m, ctx('gemini-2.0-flash'))).url).toBe(`${base}/google/models/gemini-2.0-flash:generateContent`);
    expect((await chat.request(m, ctx('gemini-2.0-flash', { stream: true }))).url).toBe(`${base}/google/models/gemini-2.0-flash:streamGenerateContent?alt=sse`);
    expect((await chat.request(m, ctx(CLAUDE))).url).toBe(`${base}/anthropic/models/${CLAUDE}:rawPredict`);
    expect((await chat.request(m, ctx(CLAUDE, { stream: true }))).url).toBe(`${base}/anthropic/models/${CLAUDE}:streamRawPredict`);
    expect((await embeddings.request({ input: 'x' }, ctx('text-embedding-005'))).url).toBe(`${base}/google/models/text-embedding-005:predict`);
    expect((await chat.request(m, ctx('gemini-2.0-flash', { customHost: 'https://proxy.example' }))).url).toBe(
      'https://proxy.example/v1/projects/my-proj/locations/europe-west4/publishers/google/models/gemini-2.0-flash:generateContent',
    );
  });

  it('takes the project from the service account key when none is given, else refuses', async () => {
    const sa = JSON.stringify({ client_email: 'a@b', private_key: 'k', project_id: 'from-key' });
    const call = await chat.request({ messages: [] }, ctx('gemini-2.0-flash', { credentials: { vertexServiceAccountJson: sa } }));
    expect(call.url).toContain('/projects/from-key/locations/us-central1/');
    expect(() => chat.request({ messages: [] }, ctx('gemini-2.0-flash', { credentials: {} }))).toThrow(expect.objectContaining({ code: 'missing_provider_credentials' }) as unknown as Error);
  });

  it('sends a held access token as Bearer', async () => {
    expect(await vertexAiAdapter.authHeaders(ctx('x'))).toEqual({ authorization: 'Bearer ya29.held' });
    await expect(vertexAiAdapter.authHeaders(ctx('x', { credentials: { vertexProjectId: 'p' } }))).rejects.toMatchObject({ code: 'missing_provider_credentials' });
  });

  it('refuses models of other publishers for chat and non-Claude models for messages', () => {
    expect(() => chat.request({ messages: [] }, ctx('meta.llama-3.1-405b'))).toThrow(expect.objectContaining({ param: 'model' }) as unknown as Error);
    expect(() => messages.request({ messages: [] }, ctx('gemini-2.0-flash'))).toThrow(expect.objectContaining({ param: 'model' }) as unknown as Error);
  });
});

describe('vertex-ai Gemini uses the Gemini transforms', () => {
  it('same body as the Gemini API', async () => {
    const call = await chat.request({ messages: [{ role: 'system', content: 'S' }, { role: 'user', content: 'U' }], max_tokens: 9 }, ctx('gemini-2.0-flash'));
    expect(bodyOf(call)).toEqual({ systemInstruction: { parts: [{ text: 'S' }] }, contents: [{ role: 'user', parts: [{ text: 'U' }] }], generationConfig: { maxOutputTokens: 9 } });
    const out = chat.response!({ candidates: [{ content: { parts: [{ text: 'ok' }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 1, totalTokenCount: 4 } }, ctx('gemini-2.0-flash')) as any;
    expect(out.choices[0].message.content).toBe('ok');
    expect(chat.usage!({ usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 1, totalTokenCount: 4 } })).toEqual({ prompt: 3, completion: 1, total: 4 });
  });
});

describe('vertex-ai Claude chat mapping (OpenAI <-> Anthropic)', () => {
  it('maps the request: system, images, tools, tool calls and results, defaults max_tokens', async () => {
    const call = await chat.request(
      {
        messages: [
          { role: 'system', content: 'Be exact.' },
          { role: 'user', content: [{ type: 'text', text: 'See' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
          { role: 'assistant', content: '', tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'calc', arguments: '{"x":1}' } }] },
          { role: 'tool', tool_call_id: 'toolu_1', content: '2' },
        ],
        temperature: 0.1,
        stop: 'Z',
        tools: [{ type: 'function', function: { name: 'calc', description: 'Calc', parameters: { type: 'object' } } }],
        tool_choice: 'auto',
        user: 'u-1',
      },
      ctx(CLAUDE, { stream: true }),
    );
    expect(bodyOf(call)).toEqual({
      anthropic_version: 'vertex-2023-10-16',
      system: 'Be exact.',
      max_tokens: 4096,
      stream: true,
      temperature: 0.1,
      stop_sequences: ['Z'],
      metadata: { user_id: 'u-1' },
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'See' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'calc', input: { x: 1 } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '2' }] },
      ],
      tools: [{ name: 'calc', description: 'Calc', input_schema: { type: 'object' } }],
      tool_choice: { type: 'auto' },
    });
  });

  it('maps the answer and its usage (cache reads count in the prompt)', () => {
    const answer = {
      id: 'msg_1',
      model: 'claude-3-5-sonnet-v2-20241022',
      content: [{ type: 'text', text: 'Result: ' }, { type: 'tool_use', id: 'toolu_2', name: 'calc', input: { x: 2 } }],
      stop_reason: 'tool_use',
      usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 90, cache_creation_input_tokens: 0 },
    };
    const out = chat.response!(answer, ctx(CLAUDE)) as any;
    expect(out).toMatchObject({ id: 'msg_1', object: 'chat.completion', model: 'claude-3-5-sonnet-v2-20241022' });
    expect(out.choices[0]).toEqual({
      index: 0,
      message: { role: 'assistant', content: 'Result: ', tool_calls: [{ id: 'toolu_2', type: 'function', function: { name: 'calc', arguments: '{"x":2}' } }] },
      logprobs: null,
      finish_reason: 'tool_calls',
    });
    expect(out.usage).toEqual({ prompt_tokens: 100, completion_tokens: 5, total_tokens: 105, prompt_tokens_details: { cached_tokens: 90 } });
    expect(chat.usage!(answer)).toEqual({ prompt: 100, completion: 5, total: 105, cachedPrompt: 90 });
  });

  it('translates the Anthropic stream to OpenAI chunks, split at every byte', () => {
    const events = [
      { type: 'message_start', message: { id: 'msg_s', usage: { input_tokens: 7, output_tokens: 1 } } },
      { type: 'ping' },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Ça ' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'va ✓' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_9', name: 'calc', input: {} } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"x"' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: ':3}' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 12 } },
      { type: 'message_stop' },
    ];
    const bytes = enc.encode(events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join(''));
    const t = chat.stream!(ctx(CLAUDE, { stream: true }));
    const chunks = sseData(pushBytewise(t, bytes) + t.end());
    const got = collectChunks(chunks);
    expect(got).toMatchObject({ role: 'assistant', content: 'Ça va ✓', finish: 'tool_calls', usage: { prompt_tokens: 7, completion_tokens: 12, total_tokens: 19 } });
    expect(got.tools).toEqual([{ id: 'toolu_9', name: 'calc', arguments: '{"x":3}' }]);
    expect(chunks.at(-1)).toBe('[DONE]');
    expect(t.usage).toEqual({ prompt: 7, completion: 12, total: 19 });
  });

  it('reports an Anthropic error event mid-stream', () => {
    const t = chat.stream!(ctx(CLAUDE, { stream: true }));
    const [err] = sseData(t.push(enc.encode('event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n')));
    expect(err).toEqual({ error: { message: 'Overloaded', type: 'overloaded_error', param: null, code: 'overloaded_error' } });
  });
});

describe('vertex-ai messages (Anthropic body relayed)', () => {
  it('moves the model to the URL and sets anthropic_version', async () => {
    const call = await messages.request({ model: CLAUDE, max_tokens: 5, stream: false, messages: [{ role: 'user', content: 'x' }] }, ctx(CLAUDE));
    expect(bodyOf(call)).toEqual({ anthropic_version: 'vertex-2023-10-16', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] });
    const streamed = await messages.request({ model: CLAUDE, max_tokens: 5, stream: true, messages: [] }, ctx(CLAUDE, { stream: true }));
    expect(bodyOf(streamed).stream).toBe(true);
    expect(messages.response).toBeUndefined();
  });

  it('relays the SSE bytes unchanged (even split mid-character) and reads the usage', () => {
    const text = 'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":4,"output_tokens":1}}}\n\nevent: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"é"}}\n\nevent: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}\n\n';
    const t = messages.stream!(ctx(CLAUDE, { stream: true }));
    expect(pushBytewise(t, enc.encode(text)) + t.end()).toBe(text);
    expect(t.usage).toEqual({ prompt: 4, completion: 3, total: 7 });
  });
});

describe('vertex-ai errors and embeddings', () => {
  it('Google-shaped and Anthropic-shaped errors both become OpenAI errors', () => {
    expect(chat.error!(403, { error: { code: 403, message: 'Permission denied', status: 'PERMISSION_DENIED' } }, ctx(CLAUDE))).toEqual({
      error: { message: 'Permission denied', type: 'permission_error', param: null, code: 'PERMISSION_DENIED' },
    });
    expect(chat.error!(400, { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: required' } }, ctx(CLAUDE))).toEqual({
      error: { message: 'max_tokens: required', type: 'invalid_request_error', param: null, code: 'invalid_request_error' },
    });
  });

  it('embeddings: instances, dimensions and token counts', async () => {
    const call = await embeddings.request({ input: ['a b', 'c'], dimensions: 256, task_type: 'RETRIEVAL_QUERY' }, ctx('text-embedding-005'));
    expect(bodyOf(call)).toEqual({ instances: [{ content: 'a b', task_type: 'RETRIEVAL_QUERY' }, { content: 'c', task_type: 'RETRIEVAL_QUERY' }], parameters: { outputDimensionality: 256 } });
    const answer = { predictions: [{ embeddings: { values: [1, 2], statistics: { token_count: 2 } } }, { embeddings: { values: [3], statistics: { token_count: 1 } } }] };
    expect(embeddings.response!(answer, ctx('text-embedding-005'))).toEqual({
      object: 'list',
      data: [{ object: 'embedding', embedding: [1, 2], index: 0 }, { object: 'embedding', embedding: [3], index: 1 }],
      model: 'text-embedding-005',
      usage: { prompt_tokens: 3, total_tokens: 3 },
    });
    expect(embeddings.usage!(answer)).toEqual({ prompt: 3, completion: 0, total: 3 });
  });
});
