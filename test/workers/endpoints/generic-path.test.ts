// Every built-in endpoint through the one generic path, against the mock provider: the exact
// request the provider receives and the exact answer the app receives, and the usage record.
import { describe, it, expect, beforeAll, afterAll, beforeEach } from 'vitest';
import { startMockProvider, type MockProvider, type RouteHandler } from '../../support/mock-provider.ts';
import { GATEWAY_KEY, startHarness, type Harness } from '../harness.ts';

let mock: MockProvider;
let gw: Harness;

const speech: RouteHandler = (ctx) => {
  ctx.res.writeHead(200, { 'content-type': 'audio/mpeg' });
  ctx.res.end(Buffer.from([0xff, 0xfb, 0x90, 0x00, 0x01, 0x02]));
};
const responsesStream: RouteHandler = (ctx) => {
  const body = ctx.request.json as { stream?: boolean };
  const done = { id: 'resp_1', object: 'response', status: 'completed', model: 'gpt-4.1', usage: { input_tokens: 9, output_tokens: 4, total_tokens: 13 } };
  if (!body.stream) return ctx.sendJson(200, done);
  ctx.res.writeHead(200, { 'content-type': 'text/event-stream' });
  ctx.res.write(`event: response.output_text.delta\ndata: ${JSON.stringify({ type: 'response.output_text.delta', delta: 'Hi' })}\n\n`);
  ctx.res.end(`event: response.completed\ndata: ${JSON.stringify({ type: 'response.completed', response: done })}\n\n`);
};

beforeAll(async () => {
  mock = await startMockProvider({ routes: { 'POST /v1/audio/speech': speech, 'POST /v1/responses': responsesStream } });
  gw = await startHarness();
});
afterAll(async () => {
  await gw?.close();
  await mock?.close();
});
beforeEach(() => {
  mock.reset();
  gw.records.length = 0;
});

const base = (extra: Record<string, string> = {}): Record<string, string> => ({
  'x-gateway-api-key': GATEWAY_KEY,
  'x-gateway-provider': 'openai',
  authorization: 'Bearer sk-openai',
  'x-gateway-custom-host': mock.baseUrl,
  ...extra,
});
const post = (path: string, body: unknown, extra: Record<string, string> = {}) =>
  fetch(`${gw.url}/v1/${path}`, { method: 'POST', headers: base({ 'content-type': 'application/json', ...extra }), body: JSON.stringify(body) });
const call = (method: string, path: string, extra: Record<string, string> = {}) => fetch(`${gw.url}/v1/${path}`, { method, headers: base(extra) });

async function recordFor(traceId: string) {
  for (;;) {
    const r = gw.records.find((x) => x.trace_id === traceId);
    if (r) return r;
    await gw.waitForRecords(gw.records.length + 1);
  }
}

describe('JSON endpoints relayed to an OpenAI-compatible upstream', () => {
  it('embeddings: the body goes upstream byte for byte (unknown fields too), the answer comes back unchanged, tokens are recorded', async () => {
    const answer = { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }], model: 'text-embedding-3-small', usage: { prompt_tokens: 5, total_tokens: 5 } };
    mock.program({ path: '/v1/embeddings', body: answer });
    const sent = { model: 'text-embedding-3-small', input: 'hello', dimensions: 2, some_future_field: { a: 1 } };
    const res = await post('embeddings', sent, { 'x-gateway-trace-id': 't-emb' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(answer);
    const got = mock.requests[0]!;
    expect(got.method).toBe('POST');
    expect(got.path).toBe('/v1/embeddings');
    expect(got.body).toBe(JSON.stringify(sent));
    expect(got.headers.authorization).toBe('Bearer sk-openai');
    expect(got.headers['content-type']).toBe('application/json');
    expect(Object.keys(got.headers).filter((h) => h.startsWith('x-gateway'))).toEqual([]);
    const rec = await recordFor('t-emb');
    expect(rec).toMatchObject({ endpoint: 'embeddings', provider: 'openai', model: 'text-embedding-3-small', status: 200, prompt_tokens: 5, completion_tokens: 0, total_tokens: 5, is_stream: false });
  });

  it('moderations: text-moderation-latest is the default model; the eleven-category result comes back as sent', async () => {
    const cats = ['hate', 'hate/threatening', 'harassment', 'harassment/threatening', 'self-harm', 'self-harm/intent', 'self-harm/instructions', 'sexual', 'sexual/minors', 'violence', 'violence/graphic'];
    const answer = { id: 'modr-1', model: 'text-moderation-007', results: [{ flagged: false, categories: Object.fromEntries(cats.map((c) => [c, false])), category_scores: Object.fromEntries(cats.map((c) => [c, 0.01])) }] };
    mock.program({ path: '/v1/moderations', body: answer });
    const res = await post('moderations', { input: 'hello' }, { 'x-gateway-trace-id': 't-mod' });
    expect(await res.json()).toEqual(answer);
    expect(mock.requests[0]!.json).toEqual({ input: 'hello', model: 'text-moderation-latest' });
    mock.program({ path: '/v1/moderations', body: answer });
    await (await post('moderations', { input: 'x', model: 'text-moderation-stable' })).json();
    expect(mock.requests[1]!.json).toEqual({ input: 'x', model: 'text-moderation-stable' });
    expect(await recordFor('t-mod')).toMatchObject({ endpoint: 'moderations', model: 'text-moderation-latest' });
  });

  it('rerank: the spec fields and provider extras are forwarded as given; the answer takes the spec result shape', async () => {
    mock.program({ path: '/v1/rerank', body: { model: 'jina-reranker-v2', usage: { total_tokens: 12 }, results: [{ index: 1, relevance_score: 0.9, document: 'b' }, { index: 0, relevance_score: 0.1, document: { text: 'a' } }] } });
    const sent = { model: 'jina-reranker-v2', query: 'q', documents: ['a', 'b'], top_n: 2, return_documents: true, max_chunks_per_doc: 3 };
    const res = await post('rerank', sent, { 'x-gateway-trace-id': 't-rr' });
    const json = (await res.json()) as any;
    expect(mock.requests[0]!.body).toBe(JSON.stringify(sent));
    expect(json).toMatchObject({
      object: 'list', model: 'jina-reranker-v2', provider: 'openai', usage: { total_tokens: 12 },
      results: [{ index: 1, relevance_score: 0.9, document: { text: 'b' } }, { index: 0, relevance_score: 0.1, document: { text: 'a' } }],
    });
    expect(typeof json.id).toBe('string');
    expect(await recordFor('t-rr')).toMatchObject({ endpoint: 'rerank', total_tokens: 12 });
  });

  it('completions stream: usage is asked for, counted, and its extra chunk hidden from the caller', async () => {
    const events = [
      { id: 'c1', object: 'text_completion', choices: [{ text: 'Hi', index: 0, finish_reason: null }] },
      { id: 'c1', object: 'text_completion', choices: [], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } },
    ];
    const sse: RouteHandler = (ctx) => {
      ctx.res.writeHead(200, { 'content-type': 'text/event-stream' });
      ctx.res.end(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('') + 'data: [DONE]\n\n');
    };
    const m2 = await startMockProvider({ routes: { 'POST /v1/completions': sse } });
    try {
      const res = await post('completions', { model: 'gpt-3.5-turbo-instruct', prompt: 'x', stream: true }, { 'x-gateway-custom-host': m2.baseUrl, 'x-gateway-trace-id': 't-cs' });
      expect(await res.text()).toBe(`data: ${JSON.stringify(events[0])}\n\ndata: [DONE]\n\n`);
      expect(m2.requests[0]!.json).toEqual({ model: 'gpt-3.5-turbo-instruct', prompt: 'x', stream: true, stream_options: { include_usage: true } });
      expect(await recordFor('t-cs')).toMatchObject({ endpoint: 'completions', is_stream: true, prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 });
    } finally {
      await m2.close();
    }
  });

  it('images generations relayed', async () => {
    mock.program({ path: '/v1/images/generations', body: { created: 1, data: [{ url: 'https://x/img.png' }] } });
    const res = await post('images/generations', { model: 'dall-e-3', prompt: 'a cat', n: 1 });
    expect(await res.json()).toEqual({ created: 1, data: [{ url: 'https://x/img.png' }] });
    expect(mock.requests[0]!.path).toBe('/v1/images/generations');
  });
});

describe('Responses API', () => {
  it('create: tokens from input/output tokens; streamed: from response.completed', async () => {
    const res = await post('responses', { model: 'gpt-4.1', input: 'hi' }, { 'x-gateway-trace-id': 't-r1' });
    expect(((await res.json()) as any).id).toBe('resp_1');
    expect(await recordFor('t-r1')).toMatchObject({ endpoint: 'responses', model: 'gpt-4.1', prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 });
    const s = await post('responses', { model: 'gpt-4.1', input: 'hi', stream: true }, { 'x-gateway-trace-id': 't-r2' });
    const text = await s.text();
    expect(text).toContain('event: response.completed');
    expect(mock.requests[1]!.json).toEqual({ model: 'gpt-4.1', input: 'hi', stream: true }); // no stream_options for Responses
    expect(await recordFor('t-r2')).toMatchObject({ is_stream: true, prompt_tokens: 9, completion_tokens: 4 });
  });

  it('get, delete and input items go to the same path and method', async () => {
    mock.program({ method: 'GET', path: '/v1/responses/resp_1', body: { id: 'resp_1', object: 'response' } });
    mock.program({ method: 'DELETE', path: '/v1/responses/resp_1', body: { id: 'resp_1', object: 'response', deleted: true } });
    mock.program({ method: 'GET', path: '/v1/responses/resp_1/input_items', body: { object: 'list', data: [], has_more: false } });
    expect(await (await call('GET', 'responses/resp_1', { 'x-gateway-trace-id': 't-rg' })).json()).toEqual({ id: 'resp_1', object: 'response' });
    expect(await (await call('DELETE', 'responses/resp_1')).json()).toEqual({ id: 'resp_1', object: 'response', deleted: true });
    expect(await (await call('GET', 'responses/resp_1/input_items?limit=5')).json()).toEqual({ object: 'list', data: [], has_more: false });
    expect(mock.requests.map((r) => `${r.method} ${r.path}${r.search}`)).toEqual(['GET /v1/responses/resp_1', 'DELETE /v1/responses/resp_1', 'GET /v1/responses/resp_1/input_items?limit=5']);
    expect(mock.requests[0]!.body).toBe('');
    expect(await recordFor('t-rg')).toMatchObject({ endpoint: 'responses.get', method: 'GET' });
  });
});

describe('multipart and binary bodies are streamed, not parsed', () => {
  it('files upload: the multipart bytes arrive unchanged with their boundary; list, get, content, delete', async () => {
    const form = new FormData();
    form.append('purpose', 'batch');
    form.append('file', new Blob([new Uint8Array([0, 1, 2, 255, 254, 10, 13])], { type: 'application/octet-stream' }), 'data.jsonl');
    const encoded = new Response(form);
    const contentType = encoded.headers.get('content-type')!;
    const bytes = Buffer.from(await encoded.arrayBuffer());
    const file = { id: 'file-1', object: 'file', bytes: 7, created_at: 1, filename: 'data.jsonl', purpose: 'batch' };
    mock.program({ path: '/v1/files', body: file });
    const up = await fetch(`${gw.url}/v1/files`, { method: 'POST', headers: base({ 'content-type': contentType }), body: bytes });
    expect(await up.json()).toEqual(file);
    const got = mock.requests[0]!;
    expect(got.headers['content-type']).toBe(contentType);
    expect(got.raw.equals(bytes)).toBe(true);
    expect(got.headers.authorization).toBe('Bearer sk-openai');

    mock.program({ method: 'GET', path: '/v1/files', body: { object: 'list', data: [file], has_more: false } });
    expect(((await (await call('GET', 'files?purpose=batch')).json()) as any).data).toEqual([file]);
    expect(mock.requests[1]!.search).toBe('?purpose=batch');
    mock.program({ method: 'GET', path: '/v1/files/file-1', body: file });
    expect(await (await call('GET', 'files/file-1')).json()).toEqual(file);
    const content = await startMockProvider({ routes: { 'GET /v1/files/file-1/content': (ctx) => { ctx.res.writeHead(200, { 'content-type': 'application/octet-stream' }); ctx.res.end(Buffer.from([0, 1, 2, 255])); } } });
    try {
      const c = await call('GET', 'files/file-1/content', { 'x-gateway-custom-host': content.baseUrl });
      expect(Buffer.from(await c.arrayBuffer()).equals(Buffer.from([0, 1, 2, 255]))).toBe(true);
    } finally {
      await content.close();
    }
    mock.program({ method: 'DELETE', path: '/v1/files/file-1', body: { id: 'file-1', object: 'file', deleted: true } });
    expect(await (await call('DELETE', 'files/file-1', { 'x-gateway-trace-id': 't-fd' })).json()).toEqual({ id: 'file-1', object: 'file', deleted: true });
    expect(await recordFor('t-fd')).toMatchObject({ endpoint: 'files.delete', method: 'DELETE', status: 200 });
  });

  it('audio transcriptions: multipart relayed, tokens from the answer; speech: audio bytes relayed', async () => {
    const form = new FormData();
    form.append('model', 'gpt-4o-transcribe');
    form.append('file', new Blob([new Uint8Array([1, 2, 3])], { type: 'audio/wav' }), 'a.wav');
    const encoded = new Response(form);
    mock.program({ path: '/v1/audio/transcriptions', body: { text: 'hello', usage: { type: 'tokens', input_tokens: 14, output_tokens: 2, total_tokens: 16 } } });
    const res = await fetch(`${gw.url}/v1/audio/transcriptions`, { method: 'POST', headers: base({ 'content-type': encoded.headers.get('content-type')!, 'x-gateway-trace-id': 't-tr' }), body: await encoded.arrayBuffer() });
    expect(((await res.json()) as any).text).toBe('hello');
    expect(await recordFor('t-tr')).toMatchObject({ endpoint: 'audio.transcriptions', prompt_tokens: 14, completion_tokens: 2, total_tokens: 16 });

    const sp = await post('audio/speech', { model: 'tts-1', input: 'hi', voice: 'alloy' });
    expect(sp.headers.get('content-type')).toBe('audio/mpeg');
    expect(Buffer.from(await sp.arrayBuffer()).equals(Buffer.from([0xff, 0xfb, 0x90, 0x00, 0x01, 0x02]))).toBe(true);
  });
});

describe('batches, vector store file batches', () => {
  const batch = {
    id: 'batch_1', object: 'batch', endpoint: '/v1/chat/completions', input_file_id: 'file-1', completion_window: '24h', status: 'validating', created_at: 1,
    errors: { object: 'list', data: [{ code: 'invalid_json', message: 'bad line', param: 'body', line: 3 }] }, output_file_id: 'file-2', error_file_id: 'file-3',
    in_progress_at: 2, expires_at: 3, finalizing_at: 4, completed_at: 5, failed_at: 6, expired_at: 7, cancelling_at: 8, cancelled_at: 9,
    request_counts: { total: 3, completed: 2, failed: 1 }, metadata: { team: 'a' },
  };
  it('create, list ({object, data, has_more, first_id, last_id}), get, cancel', async () => {
    mock.program({ path: '/v1/batches', body: batch });
    expect(await (await post('batches', { input_file_id: 'file-1', endpoint: '/v1/chat/completions', completion_window: '24h' })).json()).toEqual(batch);
    expect(mock.requests[0]!.json).toEqual({ input_file_id: 'file-1', endpoint: '/v1/chat/completions', completion_window: '24h' });
    const list = { object: 'list', data: [batch], has_more: false, first_id: 'batch_1', last_id: 'batch_1' };
    mock.program({ method: 'GET', path: '/v1/batches', body: list });
    expect(await (await call('GET', 'batches?limit=1&after=batch_0')).json()).toEqual(list);
    expect(mock.requests[1]!.search).toBe('?limit=1&after=batch_0');
    mock.program({ method: 'GET', path: '/v1/batches/batch_1', body: batch });
    expect(await (await call('GET', 'batches/batch_1')).json()).toEqual(batch);
    mock.program({ path: '/v1/batches/batch_1/cancel', body: { ...batch, status: 'cancelling' } });
    expect(((await (await call('POST', 'batches/batch_1/cancel', { 'x-gateway-trace-id': 't-bc' })).json()) as any).status).toBe('cancelling');
    expect(await recordFor('t-bc')).toMatchObject({ endpoint: 'batches.cancel' });
  });

  it('vector store file batch create', async () => {
    const fb = { id: 'vsfb_1', object: 'vector_store.files_batch', created_at: 1, vector_store_id: 'vs_1', status: 'in_progress', file_counts: { in_progress: 2, completed: 0, failed: 0, cancelled: 0, total: 2 } };
    mock.program({ path: '/v1/vector_stores/vs_1/file_batches', body: fb });
    const sent = { file_ids: ['file-1', 'file-2'], chunking_strategy: { type: 'auto' } };
    expect(await (await post('vector_stores/vs_1/file_batches', sent, { 'openai-beta': 'assistants=v2' })).json()).toEqual(fb);
    expect(mock.requests[0]!.json).toEqual(sent);
    expect(mock.requests[0]!.headers['openai-beta']).toBe('assistants=v2');
  });

  it('fine-tuning jobs, assistants and threads relay on their paths', async () => {
    mock.program({ path: '/v1/fine_tuning/jobs', body: { id: 'ftjob-1', object: 'fine_tuning.job' } });
    mock.program({ path: '/v1/assistants', body: { id: 'asst_1', object: 'assistant' } });
    mock.program({ path: '/v1/threads/th_1/runs', body: { id: 'run_1', object: 'thread.run' } });
    expect(((await (await post('fine_tuning/jobs', { model: 'gpt-4o-mini', training_file: 'file-1' })).json()) as any).id).toBe('ftjob-1');
    expect(((await (await post('assistants', { model: 'gpt-4o' })).json()) as any).id).toBe('asst_1');
    expect(((await (await post('threads/th_1/runs', { assistant_id: 'asst_1' }, { 'x-gateway-trace-id': 't-run' })).json()) as any).id).toBe('run_1');
    expect(mock.requests.map((r) => r.path)).toEqual(['/v1/fine_tuning/jobs', '/v1/assistants', '/v1/threads/th_1/runs']);
    expect(await recordFor('t-run')).toMatchObject({ endpoint: 'threads.runs.create' });
  });
});

describe('errors and limits', () => {
  it('a provider error comes back with its status and body, and is recorded', async () => {
    mock.program({ path: '/v1/embeddings', status: 429 });
    const res = await post('embeddings', { model: 'm', input: 'x' }, { 'x-gateway-trace-id': 't-429' });
    expect(res.status).toBe(429);
    expect(((await res.json()) as any).error.code).toBe('rate_limit_exceeded');
    expect(await recordFor('t-429')).toMatchObject({ status: 429, error_code: 'upstream_429' });
  });

  it('x-gateway-request-timeout: 408 timeout_error when the provider is slower', async () => {
    mock.program({ path: '/v1/embeddings', hang: true });
    const res = await post('embeddings', { model: 'm', input: 'x' }, { 'x-gateway-request-timeout': '100', 'x-gateway-trace-id': 't-408' });
    expect(res.status).toBe(408);
    expect(await res.json()).toEqual({ error: { message: 'Request exceeded the timeout sent in the request: 100ms', type: 'timeout_error', param: null, code: 'request_timeout' } });
    expect(await recordFor('t-408')).toMatchObject({ status: 408, error_code: 'request_timeout' });
    const bad = await post('embeddings', { model: 'm', input: 'x' }, { 'x-gateway-request-timeout': 'soon' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.param).toBe('x-gateway-request-timeout');
  });

  it('a JSON endpoint rejects a body that is not a JSON object', async () => {
    const res = await fetch(`${gw.url}/v1/embeddings`, { method: 'POST', headers: base({ 'content-type': 'application/json' }), body: '[1]' });
    expect(res.status).toBe(400);
    expect(mock.requests).toHaveLength(0);
  });
});

describe('GET /v1/models', () => {
  it('with a provider: proxied to the provider', async () => {
    const res = await call('GET', 'models');
    expect(((await res.json()) as any).data[0].id).toBe('gpt-4o-mini');
    expect(mock.requests[0]!.path).toBe('/v1/models');
  });

  it('without a provider signal, or with the fetch-integrated-models flag (header or config): the integrated catalogue', async () => {
    gw.catalogue.splice(0, gw.catalogue.length, { id: 'my-gpt', object: 'model', created: 1, owned_by: 'openai' });
    const bare = await fetch(`${gw.url}/v1/models`, { headers: { 'x-gateway-api-key': GATEWAY_KEY } });
    expect(await bare.json()).toEqual({ object: 'list', data: [{ id: 'my-gpt', object: 'model', created: 1, owned_by: 'openai' }] });
    const flagged = await call('GET', 'models', { 'x-gateway-fetch-integrated-models': 'true' });
    expect(((await flagged.json()) as any).data[0].id).toBe('my-gpt');
    const config = JSON.stringify({ provider: 'openai', api_key: 'sk', fetch_integrated_models: true });
    const viaConfig = await fetch(`${gw.url}/v1/models`, { headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': config } });
    expect(((await viaConfig.json()) as any).data[0].id).toBe('my-gpt');
    expect(mock.requests).toHaveLength(0);
  });
});
