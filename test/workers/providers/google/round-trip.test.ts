// Round trips against the mock Gemini API: the adapter's call sent with real fetch, the real
// answer translated back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallContext } from '../../../../workers/providers/contract.ts';
import { googleAdapter } from '../../../../workers/providers/google/adapter.ts';
import { startMockVertex, type MockVertex } from '../../../support/mock-vertex.ts';
import { collectChunks, context, roundTrip, sseData } from './round-trip.ts';

let mock: MockVertex;
const ctx = (over: Partial<CallContext> = {}): CallContext =>
  context({ provider: 'google', model: 'gemini-2.0-flash', credentials: { apiKey: 'AIza-mock' }, customHost: mock.url, ...over });

beforeAll(async () => {
  mock = await startMockVertex({ apiKey: 'AIza-mock' });
});
afterAll(() => mock.close());

describe('google round trips', () => {
  it('chat JSON', async () => {
    mock.next({ text: ['Bonjour'], usage: { prompt: 5, completion: 2, cached: 3 } });
    const r = await roundTrip(googleAdapter, 'chat.completions', { model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'Salut' }], temperature: 0 }, ctx());
    const sent = mock.requests.at(-1)!;
    expect(sent.path).toBe('/v1beta/models/gemini-2.0-flash:generateContent');
    expect(sent.headers['x-goog-api-key']).toBe('AIza-mock');
    expect(sent.json).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Salut' }] }], generationConfig: { temperature: 0 } });
    expect(r.body).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: 'Bonjour' }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7, prompt_tokens_details: { cached_tokens: 3 } } });
    expect(r.usage).toEqual({ prompt: 5, completion: 2, total: 7, cachedPrompt: 3 });
  });

  it('chat with a function call', async () => {
    mock.next({ text: [''], functionCall: { name: 'weather', args: { city: 'Rome' } } });
    const r = await roundTrip(googleAdapter, 'chat.completions', { messages: [{ role: 'user', content: 'Weather?' }], tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'object' } } }] }, ctx());
    expect(r.body).toMatchObject({ choices: [{ message: { content: null, tool_calls: [{ type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } }] }, finish_reason: 'tool_calls' }] });
  });

  it('chat stream (alt=sse) -> OpenAI chunks with usage', async () => {
    mock.next({ text: ['Un', ', deux', ', trois'], usage: { prompt: 4, completion: 6 } });
    const r = await roundTrip(googleAdapter, 'chat.completions', { messages: [{ role: 'user', content: 'Count' }], stream: true }, ctx({ stream: true }));
    expect(mock.requests.at(-1)!.query).toBe('?alt=sse');
    const chunks = sseData(r.text!);
    expect(collectChunks(chunks)).toMatchObject({ role: 'assistant', content: 'Un, deux, trois', finish: 'stop', usage: { prompt_tokens: 4, completion_tokens: 6, total_tokens: 10 } });
    expect(chunks.at(-1)).toBe('[DONE]');
    expect(r.usage).toEqual({ prompt: 4, completion: 6, total: 10 });
  });

  it('a bad key comes back as an OpenAI-shaped error', async () => {
    const r = await roundTrip(googleAdapter, 'chat.completions', { messages: [{ role: 'user', content: 'x' }] }, ctx({ credentials: { apiKey: 'wrong' } }));
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: { message: 'API key not valid. Please pass a valid API key.', type: 'invalid_request_error', param: null, code: 'INVALID_ARGUMENT' } });
  });

  it('rate limits keep their type', async () => {
    mock.next({ status: 429 });
    const r = await roundTrip(googleAdapter, 'chat.completions', { messages: [{ role: 'user', content: 'x' }] }, ctx());
    expect(r.body).toMatchObject({ error: { type: 'rate_limit_error', code: 'RESOURCE_EXHAUSTED' } });
  });

  it('embeddings: single and batch', async () => {
    const one = await roundTrip(googleAdapter, 'embeddings', { input: 'abcde' }, ctx({ model: 'text-embedding-004' }));
    expect(one.body).toEqual({ object: 'list', data: [{ object: 'embedding', embedding: [0.5, 0.5], index: 0 }], model: 'text-embedding-004', usage: { prompt_tokens: 0, total_tokens: 0 } });
    const many = await roundTrip(googleAdapter, 'embeddings', { input: ['a', 'abcdefghij'] }, ctx({ model: 'text-embedding-004' }));
    expect(mock.requests.at(-1)!.path).toBe('/v1beta/models/text-embedding-004:batchEmbedContents');
    expect((many.body as { data: { embedding: number[] }[] }).data.map((d) => d.embedding)).toEqual([[0.1, 0.5], [1, 0.5]]);
  });
});
