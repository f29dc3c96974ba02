// Round trips: the adapter's signed call sent with real fetch to the mock Bedrock runtime
// (which checks the SigV4 signature itself), and its real answer translated back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bedrockAdapter } from '../../../../workers/providers/bedrock/adapter.ts';
import type { CallContext } from '../../../../workers/providers/contract.ts';
import { startMockBedrock, type MockBedrock } from '../../../support/mock-bedrock.ts';
import { collectChunks, context, namedEvents, roundTrip, sseData } from '../google/round-trip.ts';

const creds = { awsAccessKeyId: 'AKIDMOCK', awsSecretAccessKey: 'mock-secret/with+chars', awsSessionToken: 'session-token', awsRegion: 'us-west-2' };
let mock: MockBedrock;
const ctx = (model: string, over: Partial<CallContext> = {}): CallContext =>
  context({ provider: 'bedrock', model, credentials: creds, customHost: mock.url, ...over });
const CLAUDE = 'anthropic.claude-3-5-sonnet-20240620-v1:0';

beforeAll(async () => {
  mock = await startMockBedrock({ accessKeyId: creds.awsAccessKeyId, secretAccessKey: creds.awsSecretAccessKey, region: creds.awsRegion, sessionToken: creds.awsSessionToken });
});
afterAll(() => mock.close());

describe('bedrock round trips', () => {
  it('chat: Converse JSON, signature accepted, answer and usage translated', async () => {
    const r = await roundTrip(bedrockAdapter, 'chat.completions', { model: CLAUDE, messages: [{ role: 'system', content: 'Be kind.' }, { role: 'user', content: 'Hi' }], max_tokens: 50 }, ctx(CLAUDE));
    expect(r.status).toBe(200);
    const sent = mock.requests.at(-1)!;
    expect(sent.rawPath).toBe('/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse');
    expect(sent.modelId).toBe(CLAUDE);
    expect(sent.credentialScope).toMatch(/^\d{8}\/us-west-2\/bedrock\/aws4_request$/);
    expect(sent.json).toEqual({ system: [{ text: 'Be kind.' }], messages: [{ role: 'user', content: [{ text: 'Hi' }] }], inferenceConfig: { maxTokens: 50 } });
    expect(r.body).toMatchObject({ object: 'chat.completion', choices: [{ message: { role: 'assistant', content: 'Hello world!' }, finish_reason: 'stop' }], usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } });
    expect(r.usage).toEqual({ prompt: 11, completion: 7, total: 18 });
  });

  it('chat: an inference-profile ARN (":" and "/" in the id) signs and routes correctly', async () => {
    const arn = 'arn:aws:bedrock:us-west-2:123456789012:inference-profile/us.anthropic.claude-3-haiku-20240307-v1:0';
    const r = await roundTrip(bedrockAdapter, 'chat.completions', { messages: [{ role: 'user', content: 'Hi' }] }, ctx(arn));
    expect(r.status).toBe(200);
    expect(mock.requests.at(-1)!.modelId).toBe(arn);
  });

  it('chat: a wrong secret is refused by the mock and the 403 is translated', async () => {
    const r = await roundTrip(bedrockAdapter, 'chat.completions', { messages: [{ role: 'user', content: 'Hi' }] }, ctx(CLAUDE, { credentials: { ...creds, awsSecretAccessKey: 'wrong' } }));
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ error: { message: expect.stringContaining('signature') as unknown, type: 'permission_error', param: null, code: null } });
  });

  it('chat: an upstream validation error is translated', async () => {
    mock.next({ status: 400, error: { message: 'The model returned the following errors: messages: roles must alternate' } });
    const r = await roundTrip(bedrockAdapter, 'chat.completions', { messages: [{ role: 'user', content: 'Hi' }] }, ctx(CLAUDE));
    expect(r.body).toEqual({ error: { message: 'The model returned the following errors: messages: roles must alternate', type: 'invalid_request_error', param: null, code: null } });
  });

  it('chat stream: ConverseStream event stream -> OpenAI chunks with usage', async () => {
    mock.next({ text: ['Bon', 'jour ', 'à vous'], usage: { inputTokens: 4, outputTokens: 3 } });
    const r = await roundTrip(bedrockAdapter, 'chat.completions', { messages: [{ role: 'user', content: 'Hi' }], stream: true }, ctx(CLAUDE, { stream: true }));
    expect(mock.requests.at(-1)!.action).toBe('converse-stream');
    const chunks = sseData(r.text!);
    expect(chunks.at(-1)).toBe('[DONE]');
    const got = collectChunks(chunks);
    expect(got).toMatchObject({ role: 'assistant', content: 'Bonjour à vous', finish: 'stop', usage: { prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 } });
    expect(r.usage).toEqual({ prompt: 4, completion: 3, total: 7 });
  });

  it('chat stream: tool use streamed in pieces', async () => {
    mock.next({ text: [], toolUse: { toolUseId: 'tooluse_1', name: 'weather', input: { city: 'Oslo' }, inputChunks: ['{"ci', 'ty": "Oslo"}'] } });
    const r = await roundTrip(
      bedrockAdapter,
      'chat.completions',
      { messages: [{ role: 'user', content: 'Weather?' }], tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'object' } } }], stream: true },
      ctx(CLAUDE, { stream: true }),
    );
    expect(mock.requests.at(-1)!.json).toMatchObject({ toolConfig: { tools: [{ toolSpec: { name: 'weather', inputSchema: { json: { type: 'object' } } } }] } });
    const got = collectChunks(sseData(r.text!));
    expect(got.tools).toEqual([{ id: 'tooluse_1', name: 'weather', arguments: '{"city": "Oslo"}' }]);
    expect(got.finish).toBe('tool_calls');
  });

  it('chat stream: an exception frame mid-stream becomes an error event', async () => {
    mock.next({ text: ['partial'], exception: { type: 'modelStreamErrorException', message: 'model failed' } });
    const r = await roundTrip(bedrockAdapter, 'chat.completions', { messages: [{ role: 'user', content: 'Hi' }] }, ctx(CLAUDE, { stream: true }));
    const chunks = sseData(r.text!);
    expect(collectChunks(chunks).content).toBe('partial');
    expect(chunks).toContainEqual({ error: { message: 'model failed', type: 'upstream_error', param: null, code: 'modelStreamErrorException' } });
    expect(chunks.at(-1)).toBe('[DONE]');
  });

  it('chat stream: a corrupted CRC on the wire is detected', async () => {
    mock.next({ corruptFrame: 2 });
    const r = await roundTrip(bedrockAdapter, 'chat.completions', { messages: [{ role: 'user', content: 'Hi' }] }, ctx(CLAUDE, { stream: true }));
    const chunks = sseData(r.text!);
    expect(collectChunks(chunks).content).toBe('Hello');
    expect(chunks).toContainEqual(expect.objectContaining({ error: expect.objectContaining({ code: 'invalid_event_stream' }) as unknown }));
  });

  it('embeddings: Titan (one input, dimensions) through InvokeModel', async () => {
    const model = 'amazon.titan-embed-text-v2:0';
    const r = await roundTrip(bedrockAdapter, 'embeddings', { model, input: 'one two three', dimensions: 256 }, ctx(model));
    const sent = mock.requests.at(-1)!;
    expect(sent.rawPath).toBe('/model/amazon.titan-embed-text-v2%3A0/invoke');
    expect(sent.json).toEqual({ inputText: 'one two three', dimensions: 256 });
    expect(r.body).toEqual({ object: 'list', data: [{ object: 'embedding', embedding: [1.3, 0.25, -0.5], index: 0 }], model, usage: { prompt_tokens: 3, total_tokens: 3 } });
    expect(r.usage).toEqual({ prompt: 3, completion: 0, total: 3 });
  });

  it('embeddings: Cohere (a batch, input_type) and base64 encoding', async () => {
    const model = 'cohere.embed-english-v3';
    const r = await roundTrip(bedrockAdapter, 'embeddings', { input: ['a', 'bcd'], encoding_format: 'base64' }, ctx(model));
    expect(mock.requests.at(-1)!.json).toEqual({ texts: ['a', 'bcd'], input_type: 'search_document' });
    const data = (r.body as { data: { embedding: string; index: number }[] }).data;
    expect(data.map((d) => d.index)).toEqual([0, 1]);
    const floats = new Float32Array(Uint8Array.from(Buffer.from(data[1]!.embedding, 'base64')).buffer);
    expect([...floats].map((f) => Math.round(f * 100) / 100)).toEqual([0.3, 0.25, -0.5]);
  });

  it('embeddings: Titan refuses a batch before calling upstream', async () => {
    const before = mock.requests.length;
    await expect(roundTrip(bedrockAdapter, 'embeddings', { input: ['a', 'b'] }, ctx('amazon.titan-embed-text-v1'))).rejects.toMatchObject({ status: 400, param: 'input' });
    expect(mock.requests.length).toBe(before);
  });

  it('messages: the Anthropic body goes to InvokeModel with bedrock-2023-05-31, the answer is relayed', async () => {
    const body = { model: CLAUDE, max_tokens: 100, system: 'Terse.', messages: [{ role: 'user', content: 'Hi' }] };
    const r = await roundTrip(bedrockAdapter, 'messages', body, ctx(CLAUDE));
    const sent = mock.requests.at(-1)!;
    expect(sent.action).toBe('invoke');
    expect(sent.json).toEqual({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 100, system: 'Terse.', messages: [{ role: 'user', content: 'Hi' }] });
    expect(r.body).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'text', text: 'Hello world!' }], usage: { input_tokens: 11, output_tokens: 7 } });
    expect(r.usage).toEqual({ prompt: 11, completion: 7, total: 18 });
  });

  it('messages stream: invoke-with-response-stream re-emitted as Anthropic SSE', async () => {
    mock.next({ text: ['Hi', ' there'], usage: { inputTokens: 9, outputTokens: 4 } });
    const r = await roundTrip(bedrockAdapter, 'messages', { model: CLAUDE, max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'Hi' }] }, ctx(CLAUDE, { stream: true }));
    const sent = mock.requests.at(-1)!;
    expect(sent.action).toBe('invoke-with-response-stream');
    expect(sent.json).not.toHaveProperty('stream');
    const events = namedEvents(r.text!);
    expect(events.map((e) => e.event)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    expect(events.every((e) => e.data.type === e.event)).toBe(true);
    expect(events.map((e) => (e.data.delta as { text?: string } | undefined)?.text ?? '').join('')).toBe('Hi there');
    expect(events.at(-1)!.data).toEqual({ type: 'message_stop' });
    expect(r.text).not.toContain('[DONE]');
    expect(r.usage).toEqual({ prompt: 9, completion: 4, total: 13 });
  });

  it('messages stream: a throttling exception becomes an Anthropic error event', async () => {
    mock.next({ exception: { type: 'throttlingException', message: 'Too many tokens' } });
    const r = await roundTrip(bedrockAdapter, 'messages', { max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }, ctx(CLAUDE, { stream: true }));
    expect(namedEvents(r.text!).at(-1)).toEqual({ event: 'error', data: { type: 'error', error: { type: 'rate_limit_error', message: 'Too many tokens' } } });
  });
});

describe('bedrock pass-through signing', () => {
  it('signs a built pass-through call over its body; the mock accepts the signature', async () => {
    const body = JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'raw' }] }] });
    const c = ctx(CLAUDE);
    const call = await bedrockAdapter.signPassThrough!(
      { url: `${mock.url}/model/${encodeURIComponent(CLAUDE)}/converse`, method: 'POST', headers: { 'content-type': 'application/json', 'x-caller-header': 'kept' }, body },
      c,
    );
    expect(call.headers['x-caller-header']).toBe('kept');
    expect(call.headers.authorization).toContain('SignedHeaders=host;x-amz-date;x-amz-security-token,');
    const res = await fetch(call.url, { method: call.method, headers: call.headers, body: call.body as string });
    expect(res.status).toBe(200);
    expect(mock.requests.at(-1)!.json).toEqual(JSON.parse(body));
  });

  it('a body changed after signing is refused', async () => {
    const call = await bedrockAdapter.signPassThrough!({ url: `${mock.url}/model/x/converse`, method: 'POST', headers: {}, body: '{"a":1}' }, ctx(CLAUDE));
    const res = await fetch(call.url, { method: 'POST', headers: call.headers, body: '{"a":2}' });
    expect(res.status).toBe(403);
  });
});
