// End to end through several endpoints: the official openai client → a running worker → the mock
// provider; usage lands in the control plane's request log.
import { describe, it, expect, beforeAll, afterAll, beforeEach } from 'vitest';
import OpenAI, { toFile } from 'openai';
import { startMockProvider, type MockProvider, type RouteHandler } from '../support/mock-provider.ts';
import { startStack, type Stack } from '../support/stack.ts';

let stack: Stack;
let mock: MockProvider;
let client: OpenAI;

async function rowFor(traceId: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const rows = await stack.db.orm.em.getConnection().execute('select * from request_log where trace_id = ?', [traceId]);
    if (rows.length) return rows[0];
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no request_log row for ${traceId}`);
}

const speech: RouteHandler = (ctx) => {
  ctx.res.writeHead(200, { 'content-type': 'audio/mpeg' });
  ctx.res.end(Buffer.from('ID3-fake-mp3'));
};

beforeAll(async () => {
  stack = await startStack({ workers: 1 });
  mock = await startMockProvider({ routes: { 'POST /v1/audio/speech': speech } });
  const created = await stack.createKey({ name: 'e2e-endpoints', workspace_id: 'ws-default', scopes: ['completions.write'] });
  client = new OpenAI({
    apiKey: 'sk-provider-key',
    baseURL: `${stack.workers[0]!.url}/v1`,
    defaultHeaders: { 'x-gateway-api-key': created.key, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': mock.baseUrl },
    maxRetries: 0,
  });
});
afterAll(async () => {
  await mock?.close();
  await stack?.close();
});
beforeEach(() => mock.reset());

describe('openai client through the worker, beyond chat', () => {
  it('embeddings, with tokens in the request log', async () => {
    mock.program({ path: '/v1/embeddings', body: { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.5, 0.25] }], model: 'text-embedding-3-small', usage: { prompt_tokens: 3, total_tokens: 3 } } });
    const { data, response } = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'hello', encoding_format: 'float' }).withResponse();
    expect(data.data[0]!.embedding).toEqual([0.5, 0.25]);
    const row = await rowFor(response.headers.get('x-gateway-trace-id')!);
    expect(row).toMatchObject({ endpoint: 'embeddings', provider: 'openai', prompt_tokens: 3, total_tokens: 3, status: 200 });
  });

  it('moderations', async () => {
    mock.program({ path: '/v1/moderations', body: { id: 'modr-1', model: 'text-moderation-007', results: [{ flagged: true, categories: { hate: true }, category_scores: { hate: 0.9 } }] } });
    const res = await client.moderations.create({ input: 'x' });
    expect(res.results[0]!.flagged).toBe(true);
    expect(mock.requests[0]!.json).toEqual({ input: 'x', model: 'text-moderation-latest' });
  });

  it('files: upload (multipart), list, delete', async () => {
    const file = { id: 'file-9', object: 'file', bytes: 5, created_at: 1, filename: 'in.jsonl', purpose: 'batch', status: 'processed' };
    mock.program({ path: '/v1/files', body: file });
    const up = await client.files.create({ file: await toFile(Buffer.from('{}\n{}\n'), 'in.jsonl'), purpose: 'batch' });
    expect(up.id).toBe('file-9');
    expect(mock.requests[0]!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(mock.requests[0]!.body).toContain('{}\n{}\n');
    mock.program({ method: 'GET', path: '/v1/files', body: { object: 'list', data: [file], has_more: false } });
    const page = await client.files.list();
    expect(page.data.map((f) => f.id)).toEqual(['file-9']);
    mock.program({ method: 'DELETE', path: '/v1/files/file-9', body: { id: 'file-9', object: 'file', deleted: true } });
    expect(await client.files.delete('file-9')).toEqual({ id: 'file-9', object: 'file', deleted: true });
  });

  it('batches: create and list', async () => {
    const batch = { id: 'batch_9', object: 'batch', endpoint: '/v1/chat/completions', input_file_id: 'file-9', completion_window: '24h', status: 'validating', created_at: 1, request_counts: { total: 0, completed: 0, failed: 0 } };
    mock.program({ path: '/v1/batches', body: batch });
    expect((await client.batches.create({ input_file_id: 'file-9', endpoint: '/v1/chat/completions', completion_window: '24h' })).status).toBe('validating');
    mock.program({ method: 'GET', path: '/v1/batches', body: { object: 'list', data: [batch], has_more: false, first_id: 'batch_9', last_id: 'batch_9' } });
    const list = await client.batches.list({ limit: 1 });
    expect(list.data[0]!.id).toBe('batch_9');
    expect(mock.requests[1]!.search).toBe('?limit=1');
  });

  it('images and speech', async () => {
    mock.program({ path: '/v1/images/generations', body: { created: 1, data: [{ b64_json: 'aGk=' }] } });
    expect((await client.images.generate({ model: 'gpt-image-1', prompt: 'cat' })).data![0]!.b64_json).toBe('aGk=');
    const audio = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'hi' });
    expect(Buffer.from(await audio.arrayBuffer()).toString()).toBe('ID3-fake-mp3');
  });

  it('responses: create, with tokens in the request log', async () => {
    mock.program({ path: '/v1/responses', body: { id: 'resp_9', object: 'response', created_at: 1, status: 'completed', model: 'gpt-4.1', output: [], usage: { input_tokens: 8, output_tokens: 2, total_tokens: 10 } } });
    const { data, response } = await client.responses.create({ model: 'gpt-4.1', input: 'hi' }).withResponse();
    expect(data.id).toBe('resp_9');
    const row = await rowFor(response.headers.get('x-gateway-trace-id')!);
    expect(row).toMatchObject({ endpoint: 'responses', prompt_tokens: 8, completion_tokens: 2, total_tokens: 10 });
  });

  it('models from the provider, and a pass-through path with the client', async () => {
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['gpt-4o-mini']);
    mock.program({ path: '/v1/custom/thing', body: { ok: true } });
    const { data, response } = await client.post<{ ok: boolean }>('/custom/thing', { body: { a: 1 } }).withResponse();
    expect(data).toEqual({ ok: true });
    expect(await rowFor(response.headers.get('x-gateway-trace-id')!)).toMatchObject({ endpoint: 'proxy', status: 200 });
  });
});
