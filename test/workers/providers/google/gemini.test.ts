import { describe, expect, it } from 'vitest';
import type { CallContext, UpstreamCall } from '../../../../workers/providers/contract.ts';
import { googleAdapter } from '../../../../workers/providers/google/adapter.ts';
import { collectChunks, context, pushBytewise, sseData } from './round-trip.ts';

const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);
const ctx = (over: Partial<CallContext> = {}): CallContext => context({ provider: 'google', model: 'gemini-2.0-flash', credentials: { apiKey: 'AIza-test' }, now: () => NOW, ...over });
const chat = googleAdapter.endpoints['chat.completions']!;
const embeddings = googleAdapter.endpoints.embeddings!;
const bodyOf = (call: UpstreamCall): Record<string, unknown> => JSON.parse(call.body as string) as Record<string, unknown>;
const enc = new TextEncoder();

describe('google chat.completions -> generateContent', () => {
  it('targets v1beta generateContent, or streamGenerateContent?alt=sse; the key goes in x-goog-api-key', async () => {
    const call = await chat.request({ messages: [{ role: 'user', content: 'hi' }] }, ctx());
    expect(call.url).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent');
    expect(call.headers).toEqual({ 'content-type': 'application/json' });
    const stream = await chat.request({ messages: [{ role: 'user', content: 'hi' }] }, ctx({ stream: true, customHost: 'http://gw.internal:9000' }));
    expect(stream.url).toBe('http://gw.internal:9000/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse');
    expect(await googleAdapter.authHeaders(ctx())).toEqual({ 'x-goog-api-key': 'AIza-test' });
    expect(googleAdapter.baseUrl(ctx())).toBe('https://generativelanguage.googleapis.com');
  });

  it('maps roles, system instruction, images, tool calls and results, tools and generation config', async () => {
    const call = await chat.request(
      {
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } }, { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }] },
          { role: 'assistant', content: 'Let me check.', tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'lookup', arguments: '{"q":"cat"}' } }] },
          { role: 'tool', tool_call_id: 'call_a', content: '{"answer":"a cat"}' },
          { role: 'assistant', tool_calls: [{ id: 'call_b', type: 'function', function: { name: 'lookup', arguments: '{"q":"dog"}' } }] },
          { role: 'tool', tool_call_id: 'call_b', content: 'plain text' },
        ],
        max_tokens: 256,
        temperature: 0.5,
        top_p: 0.8,
        top_k: 40,
        n: 2,
        stop: ['###'],
        seed: 7,
        response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', additionalProperties: false, properties: { a: { type: 'string' } } } } },
        tools: [{ type: 'function', function: { name: 'lookup', description: 'Look up', parameters: { type: 'object', additionalProperties: false, properties: { q: { type: 'string' } }, required: ['q'] } } }],
        tool_choice: { type: 'function', function: { name: 'lookup' } },
      },
      ctx(),
    );
    expect(bodyOf(call)).toEqual({
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'What is this?' }, { inlineData: { mimeType: 'image/jpeg', data: '/9j/4AAQ' } }, { fileData: { mimeType: 'image/png', fileUri: 'https://example.com/cat.png' } }] },
        { role: 'model', parts: [{ text: 'Let me check.' }, { functionCall: { name: 'lookup', args: { q: 'cat' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'lookup', response: { answer: 'a cat' } } }] },
        { role: 'model', parts: [{ functionCall: { name: 'lookup', args: { q: 'dog' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'lookup', response: { content: 'plain text' } } }] },
      ],
      tools: [{ functionDeclarations: [{ name: 'lookup', description: 'Look up', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } }] }],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['lookup'] } },
      generationConfig: {
        maxOutputTokens: 256,
        temperature: 0.5,
        topP: 0.8,
        topK: 40,
        candidateCount: 2,
        seed: 7,
        stopSequences: ['###'],
        responseMimeType: 'application/json',
        responseSchema: { type: 'object', properties: { a: { type: 'string' } } },
      },
    });
  });

  it('maps reasoning_effort to a thinking budget (2.5) or level (3)', async () => {
    const m = [{ role: 'user', content: 'x' }];
    expect(bodyOf(await chat.request({ messages: m, reasoning_effort: 'medium' }, ctx({ model: 'gemini-2.5-flash' }))).generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 8192 } });
    expect(bodyOf(await chat.request({ messages: m, reasoning_effort: 'none' }, ctx({ model: 'gemini-2.5-flash' }))).generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 0 } });
    expect(bodyOf(await chat.request({ messages: m, reasoning_effort: 'high' }, ctx({ model: 'gemini-3-pro-preview' }))).generationConfig).toEqual({ thinkingConfig: { thinkingLevel: 'high' } });
  });

  it('names the bad field', async () => {
    await expect(async () => chat.request({ messages: [{ role: 'wizard', content: 'x' }] }, ctx())).rejects.toMatchObject({ status: 400, param: 'messages[0].role' });
    await expect(async () => chat.request({ messages: 'nope' }, ctx())).rejects.toMatchObject({ status: 400, param: 'messages' });
  });
});

describe('google thought signatures (Gemini 2.5/3 function calling)', () => {
  it('carries a call signature inside the tool call id and puts it back on the replayed call', async () => {
    const answer = { candidates: [{ content: { parts: [{ functionCall: { name: 'f', args: {} }, thoughtSignature: 'c2lnbmF0dXJl' }, { functionCall: { name: 'g', args: {} } }] }, finishReason: 'STOP' }] };
    const out = chat.response!(answer, ctx({ model: 'gemini-3-pro-preview' })) as any;
    const [first, second] = out.choices[0].message.tool_calls as { id: string }[];
    expect(first!.id).toMatch(/^call_\w+__thought__c2lnbmF0dXJl$/);
    expect(second!.id).not.toContain('__thought__');
    const replay = await chat.request(
      {
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', tool_calls: [{ id: first!.id, type: 'function', function: { name: 'f', arguments: '{}' } }, { id: second!.id, type: 'function', function: { name: 'g', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: first!.id, content: '1' },
          { role: 'tool', tool_call_id: second!.id, content: '2' },
        ],
      },
      ctx({ model: 'gemini-3-pro-preview' }),
    );
    const contents = bodyOf(replay).contents as { parts: Record<string, unknown>[] }[];
    expect(contents[1]!.parts).toEqual([{ functionCall: { name: 'f', args: {} }, thoughtSignature: 'c2lnbmF0dXJl' }, { functionCall: { name: 'g', args: {} } }]);
    expect(contents[2]!.parts).toEqual([{ functionResponse: { name: 'f', response: { content: '1' } } }, { functionResponse: { name: 'g', response: { content: '2' } } }]);
  });

  it('streams the signature in the id too', () => {
    const t = chat.stream!(ctx({ stream: true }));
    const text = t.push(enc.encode(`data: ${JSON.stringify({ candidates: [{ content: { parts: [{ functionCall: { name: 'f', args: {} }, thoughtSignature: 'abc' }] } }] })}\n\n`)) + t.end();
    expect(collectChunks(sseData(text)).tools[0]!.id).toMatch(/__thought__abc$/);
  });

  it('unsigned history gets the documented sentinel on Gemini 3 only', async () => {
    const messages = [{ role: 'user', content: 'go' }, { role: 'assistant', tool_calls: [{ id: 'call_x', type: 'function', function: { name: 'f', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'call_x', content: '1' }];
    const g3 = bodyOf(await chat.request({ messages }, ctx({ model: 'gemini-3-flash' }))).contents as { parts: Record<string, unknown>[] }[];
    expect(g3[1]!.parts[0]!.thoughtSignature).toBe('skip_thought_signature_validator');
    const g2 = bodyOf(await chat.request({ messages }, ctx({ model: 'gemini-2.5-flash' }))).contents as { parts: Record<string, unknown>[] }[];
    expect(g2[1]!.parts[0]).not.toHaveProperty('thoughtSignature');
  });
});

describe('google generateContent answer -> OpenAI', () => {
  it('translates text, function calls, finish reasons and usage (cached and thinking tokens)', () => {
    const answer = {
      candidates: [
        { index: 0, finishReason: 'STOP', content: { role: 'model', parts: [{ text: 'thinking...', thought: true }, { text: 'Sure: ' }, { functionCall: { name: 'lookup', args: { q: 'x' } } }] } },
        { index: 1, finishReason: 'MAX_TOKENS', content: { role: 'model', parts: [{ text: 'Cut' }] } },
      ],
      usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 20, thoughtsTokenCount: 5, totalTokenCount: 125, cachedContentTokenCount: 60 },
      modelVersion: 'gemini-2.0-flash-001',
      responseId: 'abc',
    };
    const out = chat.response!(answer, ctx()) as Record<string, any>;
    expect(out).toMatchObject({ id: 'chatcmpl-abc', object: 'chat.completion', created: Math.floor(NOW / 1000), model: 'gemini-2.0-flash-001' });
    expect(out.choices[0].message.content).toBe('Sure: ');
    expect(out.choices[0].message.tool_calls).toEqual([{ id: expect.stringMatching(/^call_/) as unknown, type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }]);
    expect(out.choices[0].finish_reason).toBe('tool_calls');
    expect(out.choices[1]).toMatchObject({ index: 1, message: { content: 'Cut' }, finish_reason: 'length' });
    expect(out.usage).toEqual({ prompt_tokens: 100, completion_tokens: 25, total_tokens: 125, prompt_tokens_details: { cached_tokens: 60 } });
    expect(chat.usage!(answer)).toEqual({ prompt: 100, completion: 25, total: 125, cachedPrompt: 60 });
    expect(chat.usage!({})).toBeNull();
  });

  it('maps safety stops to content_filter, including a prompt blocked before any candidate', () => {
    const out = chat.response!({ candidates: [{ finishReason: 'SAFETY', content: { parts: [] } }] }, ctx()) as any;
    expect(out.choices[0].finish_reason).toBe('content_filter');
    const blocked = chat.response!({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 4, totalTokenCount: 4 } }, ctx()) as any;
    expect(blocked.choices).toEqual([{ index: 0, message: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: 'content_filter' }]);
    const t = chat.stream!(ctx({ stream: true }));
    const text = t.push(enc.encode('data: {"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"}}\n\n')) + t.end();
    expect(collectChunks(sseData(text)).finish).toBe('content_filter');
  });

  it('streams several candidates with one usage, on the last finish chunk', () => {
    const t = chat.stream!(ctx({ stream: true }));
    const event = { candidates: [{ index: 0, content: { parts: [{ text: 'A' }] }, finishReason: 'STOP' }, { index: 1, content: { parts: [{ text: 'B' }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 2, totalTokenCount: 3 } };
    const chunks = sseData(t.push(enc.encode(`data: ${JSON.stringify(event)}\n\n`)) + t.end()) as { choices: { index: number; delta: { content?: string }; finish_reason: string | null }[]; usage?: unknown }[];
    const content = (i: number): string => chunks.flatMap((c) => c.choices ?? []).filter((ch) => ch.index === i).map((ch) => ch.delta.content ?? '').join('');
    expect([content(0), content(1)]).toEqual(['A', 'B']);
    expect(chunks.filter((c) => c.usage)).toHaveLength(1);
  });

  it('turns Google errors into the OpenAI error shape', () => {
    expect(chat.error!(429, { error: { code: 429, message: 'Resource exhausted', status: 'RESOURCE_EXHAUSTED' } }, ctx())).toEqual({
      error: { message: 'Resource exhausted', type: 'rate_limit_error', param: null, code: 'RESOURCE_EXHAUSTED' },
    });
    expect(chat.error!(400, [{ error: { code: 400, message: 'bad', status: 'INVALID_ARGUMENT' } }], ctx())).toMatchObject({ error: { message: 'bad', code: 'INVALID_ARGUMENT' } });
  });
});

describe('google streamGenerateContent (SSE) -> OpenAI chunks', () => {
  const sse = (events: unknown[], sep = '\r\n\r\n'): Uint8Array => enc.encode(events.map((e) => `data: ${JSON.stringify(e)}${sep}`).join(''));

  it('streams text and a function call, split at every byte (CRLF framing, multi-byte UTF-8)', () => {
    const bytes = sse([
      { candidates: [{ content: { role: 'model', parts: [{ text: 'Grüß ' }] }, index: 0 }], usageMetadata: { promptTokenCount: 8, totalTokenCount: 8 } },
      { candidates: [{ content: { role: 'model', parts: [{ text: 'dich 👋' }] }, index: 0 }] },
      { candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'wave', args: { times: 2 } } }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 8, candidatesTokenCount: 6, totalTokenCount: 14 } },
    ]);
    const t = chat.stream!(ctx({ stream: true }));
    const chunks = sseData(pushBytewise(t, bytes) + t.end());
    expect(chunks.at(-1)).toBe('[DONE]');
    const got = collectChunks(chunks);
    expect(got.role).toBe('assistant');
    expect(got.content).toBe('Grüß dich 👋');
    expect(got.tools).toEqual([{ id: expect.stringMatching(/^call_/) as unknown, name: 'wave', arguments: '{"times":2}' }]);
    expect(got.finish).toBe('tool_calls');
    expect(got.usage).toEqual({ prompt_tokens: 8, completion_tokens: 6, total_tokens: 14 });
    expect(t.usage).toEqual({ prompt: 8, completion: 6, total: 14 });
  });

  it('accepts LF framing and a last event without its blank line', () => {
    const t = chat.stream!(ctx({ stream: true }));
    const text = t.push(enc.encode('data: {"candidates":[{"content":{"parts":[{"text":"a"}]}}]}\n\ndata: {"candidates":[{"content":{"parts":[{"text":"b"}]},"finishReason":"MAX_TOKENS"}]}')) + t.end();
    const got = collectChunks(sseData(text));
    expect(got.content).toBe('ab');
    expect(got.finish).toBe('length');
    expect(got.usage).toBeNull();
  });

  it('relays an error event mid-stream', () => {
    const t = chat.stream!(ctx({ stream: true }));
    const [err] = sseData(t.push(sse([{ error: { code: 503, message: 'overloaded', status: 'UNAVAILABLE' } }])));
    expect(err).toEqual({ error: { message: 'overloaded', type: 'upstream_error', param: null, code: 'UNAVAILABLE' } });
  });
});

describe('google embeddings', () => {
  it('one input -> embedContent, a list -> batchEmbedContents', async () => {
    const one = await embeddings.request({ input: 'hello', dimensions: 64 }, ctx({ model: 'text-embedding-004' }));
    expect(one.url).toBe('https://generativelanguage.googleapis.com/v1beta/models/text-embedding-004:embedContent');
    expect(bodyOf(one)).toEqual({ content: { parts: [{ text: 'hello' }] }, outputDimensionality: 64 });
    const many = await embeddings.request({ input: ['a', 'b'] }, ctx({ model: 'text-embedding-004' }));
    expect(many.url).toMatch(/:batchEmbedContents$/);
    expect(bodyOf(many)).toEqual({ requests: [{ model: 'models/text-embedding-004', content: { parts: [{ text: 'a' }] } }, { model: 'models/text-embedding-004', content: { parts: [{ text: 'b' }] } }] });
    await expect(async () => embeddings.request({ input: [1, 2] }, ctx())).rejects.toMatchObject({ param: 'input' });
  });

  it('answers an OpenAI embedding list', () => {
    const c = ctx({ model: 'text-embedding-004' });
    expect(embeddings.response!({ embeddings: [{ values: [0.1, 0.2] }, { values: [0.3] }] }, c)).toEqual({
      object: 'list',
      data: [{ object: 'embedding', embedding: [0.1, 0.2], index: 0 }, { object: 'embedding', embedding: [0.3], index: 1 }],
      model: 'text-embedding-004',
      usage: { prompt_tokens: 0, total_tokens: 0 },
    });
  });
});
