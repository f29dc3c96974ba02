// Round trips against the mock Vertex AI: service-account JWT -> token exchange (verified by
// the mock), the adapter's call sent with real fetch, the real answer translated back.
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { UpstreamFetch } from '../../../../workers/contracts.ts';
import type { CallContext } from '../../../../workers/providers/contract.ts';
import { vertexAiAdapter } from '../../../../workers/providers/vertex-ai/adapter.ts';
import { tokenCache } from '../../../../workers/providers/vertex-ai/service-account.ts';
import { startMockVertex, type MockVertex } from '../../../support/mock-vertex.ts';
import { collectChunks, context, fetchUpstream, namedEvents, roundTrip, sseData } from '../google/round-trip.ts';

const { privateKey, publicKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
const SA = { type: 'service_account', project_id: 'sa-project', private_key_id: 'key-1', private_key: privateKey, client_email: 'gw@sa-project.iam.gserviceaccount.com', token_uri: 'https://evil.example/token' };
const CLAUDE = 'claude-sonnet-4@20250514';

let mock: MockVertex;
let clock = Date.now();
let exchanges: string[] = [];
/** ctx.upstream: fetch to the mock, recording which URLs the adapter called. */
const upstream: UpstreamFetch = (url, req) => {
  exchanges.push(url);
  return fetchUpstream(url, req);
};
const ctx = (model: string, over: Partial<CallContext> = {}): CallContext =>
  context({
    provider: 'vertex-ai',
    model,
    credentials: { vertexRegion: 'us-east5', vertexServiceAccountJson: JSON.stringify(SA), vertexTokenUrl: mock.tokenUrl },
    customHost: mock.url,
    upstream,
    now: () => clock,
    ...over,
  });

beforeAll(async () => {
  mock = await startMockVertex({ serviceAccount: { clientEmail: SA.client_email, privateKeyId: SA.private_key_id, publicKeyPem: publicKey }, tokenLifetimeS: 120, staticTokens: ['ya29.held'] });
});
afterAll(() => mock.close());
beforeEach(() => {
  tokenCache.clear();
  exchanges = [];
  clock = Date.now();
});

describe('vertex-ai service-account auth', () => {
  it('exchanges an RS256 JWT for a token at the configured endpoint (never the key file token_uri), then caches it', async () => {
    const first = await vertexAiAdapter.authHeaders(ctx('gemini-2.0-flash'));
    expect(first.authorization).toMatch(/^Bearer ya29\.mock-\d+$/);
    expect(exchanges).toEqual([mock.tokenUrl]);
    const req = mock.tokenRequests.at(-1)!;
    expect(req.grantType).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    expect(req.header).toMatchObject({ alg: 'RS256', kid: 'key-1' });
    expect(req.claims).toMatchObject({ iss: SA.client_email, aud: mock.tokenUrl, scope: 'https://www.googleapis.com/auth/cloud-platform' });
    expect((req.claims.exp as number) - (req.claims.iat as number)).toBe(3600);

    clock += 59_000; // 120 s token, refreshed 60 s before expiry
    expect(await vertexAiAdapter.authHeaders(ctx('gemini-2.0-flash'))).toEqual(first);
    expect(exchanges).toHaveLength(1);
    clock += 2_000;
    const second = await vertexAiAdapter.authHeaders(ctx('gemini-2.0-flash'));
    expect(exchanges).toHaveLength(2);
    expect(second.authorization).not.toBe(first.authorization);
  });

  it('shares one exchange between concurrent calls', async () => {
    const all = await Promise.all([1, 2, 3, 4].map(() => vertexAiAdapter.authHeaders(ctx('gemini-2.0-flash'))));
    expect(new Set(all.map((h) => h.authorization)).size).toBe(1);
    expect(exchanges).toHaveLength(1);
  });

  it('reports a rejected exchange as an authentication error and caches nothing', async () => {
    const { privateKey: otherKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
    const bad = { ...SA, private_key: otherKey };
    const c = ctx('gemini-2.0-flash', { credentials: { vertexServiceAccountJson: JSON.stringify(bad), vertexTokenUrl: mock.tokenUrl } });
    await expect(vertexAiAdapter.authHeaders(c)).rejects.toMatchObject({ status: 401, code: 'token_exchange_failed', message: expect.stringContaining('signature') as unknown });
    await expect(vertexAiAdapter.authHeaders(c)).rejects.toMatchObject({ code: 'token_exchange_failed' });
    expect(exchanges).toHaveLength(2);
  });

  it('never hands a cached token to a key file that only names the same account', async () => {
    await vertexAiAdapter.authHeaders(ctx('gemini-2.0-flash'));
    const { privateKey: otherKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
    const impostor = ctx('gemini-2.0-flash', { credentials: { vertexServiceAccountJson: JSON.stringify({ ...SA, private_key: otherKey }), vertexTokenUrl: mock.tokenUrl } });
    await expect(vertexAiAdapter.authHeaders(impostor)).rejects.toMatchObject({ code: 'token_exchange_failed' });
    expect(exchanges).toHaveLength(2);
  });

  it('rejects a malformed key file', async () => {
    await expect(vertexAiAdapter.authHeaders(ctx('x', { credentials: { vertexServiceAccountJson: '{nope' } }))).rejects.toMatchObject({ status: 400, code: 'invalid_service_account' });
    await expect(vertexAiAdapter.authHeaders(ctx('x', { credentials: { vertexServiceAccountJson: JSON.stringify({ ...SA, private_key: 'not a key' }) } }))).rejects.toMatchObject({ code: 'invalid_service_account' });
  });

  it('a held access token needs no exchange', async () => {
    const r = await roundTrip(vertexAiAdapter, 'chat.completions', { messages: [{ role: 'user', content: 'x' }] }, ctx('gemini-2.0-flash', { credentials: { vertexProjectId: 'p', vertexRegion: 'us-east5', accessToken: 'ya29.held' } }));
    expect(r.status).toBe(200);
    expect(exchanges).toEqual([]);
  });
});

describe('vertex-ai round trips', () => {
  it('Gemini chat JSON, project from the key file, bearer from the exchange', async () => {
    mock.next({ text: ['Ciao'], usage: { prompt: 3, completion: 1 } });
    const r = await roundTrip(vertexAiAdapter, 'chat.completions', { messages: [{ role: 'user', content: 'Hi' }] }, ctx('gemini-2.0-flash'));
    const sent = mock.requests.at(-1)!;
    expect(sent.path).toBe('/v1/projects/sa-project/locations/us-east5/publishers/google/models/gemini-2.0-flash:generateContent');
    expect(sent.headers.authorization).toMatch(/^Bearer ya29\.mock-/);
    expect(r.body).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: 'Ciao' }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } });
  });

  it('Gemini chat stream', async () => {
    mock.next({ text: ['a', 'b', 'c'], usage: { prompt: 2, completion: 3, thoughts: 4 } });
    const r = await roundTrip(vertexAiAdapter, 'chat.completions', { messages: [{ role: 'user', content: 'Hi' }], stream: true }, ctx('gemini-2.5-pro', { stream: true }));
    expect(mock.requests.at(-1)!.query).toBe('?alt=sse');
    expect(collectChunks(sseData(r.text!))).toMatchObject({ content: 'abc', finish: 'stop', usage: { prompt_tokens: 2, completion_tokens: 7, total_tokens: 9 } });
    expect(r.usage).toEqual({ prompt: 2, completion: 7, total: 9 });
  });

  it('Claude chat JSON through rawPredict', async () => {
    mock.next({ text: ['Hello'], functionCall: { name: 'calc', args: { x: 1 }, id: 'toolu_7' }, usage: { prompt: 20, completion: 8, cached: 5 } });
    const r = await roundTrip(vertexAiAdapter, 'chat.completions', { model: CLAUDE, messages: [{ role: 'user', content: 'Hi' }], tools: [{ type: 'function', function: { name: 'calc', parameters: { type: 'object' } } }] }, ctx(CLAUDE));
    const sent = mock.requests.at(-1)!;
    expect(sent.path).toBe(`/v1/projects/sa-project/locations/us-east5/publishers/anthropic/models/${CLAUDE}:rawPredict`);
    expect(sent.json).toMatchObject({ anthropic_version: 'vertex-2023-10-16', max_tokens: 4096, messages: [{ role: 'user', content: 'Hi' }] });
    expect(r.body).toMatchObject({ choices: [{ message: { content: 'Hello', tool_calls: [{ id: 'toolu_7', function: { name: 'calc', arguments: '{"x":1}' } }] }, finish_reason: 'tool_calls' }], usage: { prompt_tokens: 25, completion_tokens: 8, total_tokens: 33, prompt_tokens_details: { cached_tokens: 5 } } });
  });

  it('Claude chat stream through streamRawPredict', async () => {
    mock.next({ text: ['Hel', 'lo'], functionCall: { name: 'calc', args: { x: 42 } }, usage: { prompt: 6, completion: 9 } });
    const r = await roundTrip(vertexAiAdapter, 'chat.completions', { messages: [{ role: 'user', content: 'Hi' }], stream: true }, ctx(CLAUDE, { stream: true }));
    expect(mock.requests.at(-1)!.json).toMatchObject({ stream: true });
    const got = collectChunks(sseData(r.text!));
    expect(got).toMatchObject({ content: 'Hello', finish: 'tool_calls', usage: { prompt_tokens: 6, completion_tokens: 9, total_tokens: 15 } });
    expect(got.tools).toEqual([{ id: 'toolu_mock', name: 'calc', arguments: '{"x":42}' }]);
  });

  it('messages JSON relayed in Anthropic shape', async () => {
    const r = await roundTrip(vertexAiAdapter, 'messages', { model: CLAUDE, max_tokens: 20, messages: [{ role: 'user', content: 'Hi' }] }, ctx(CLAUDE));
    expect(mock.requests.at(-1)!.json).toEqual({ anthropic_version: 'vertex-2023-10-16', max_tokens: 20, messages: [{ role: 'user', content: 'Hi' }] });
    expect(r.body).toMatchObject({ type: 'message', content: [{ type: 'text', text: 'Hello world!' }] });
    expect(r.usage).toEqual({ prompt: 11, completion: 7, total: 18, cachedPrompt: 0 });
  });

  it('messages stream relayed as Anthropic SSE with usage', async () => {
    mock.next({ text: ['x', 'y'], usage: { prompt: 3, completion: 2 } });
    const r = await roundTrip(vertexAiAdapter, 'messages', { model: CLAUDE, max_tokens: 20, stream: true, messages: [{ role: 'user', content: 'Hi' }] }, ctx(CLAUDE, { stream: true }));
    const events = namedEvents(r.text!);
    expect(events.map((e) => e.event)).toEqual(['message_start', 'ping', 'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    expect(r.usage).toEqual({ prompt: 3, completion: 2, total: 5, cachedPrompt: 0 });
  });

  it('Anthropic-shaped upstream errors are translated', async () => {
    mock.next({ status: 400, error: { type: 'error', error: { type: 'invalid_request_error', message: 'messages: at least one message is required' } } });
    const r = await roundTrip(vertexAiAdapter, 'messages', { max_tokens: 1, messages: [] }, ctx(CLAUDE));
    expect(r.body).toEqual({ error: { message: 'messages: at least one message is required', type: 'invalid_request_error', param: null, code: 'invalid_request_error' } });
  });

  it('an unknown token is refused (401) and translated', async () => {
    const r = await roundTrip(vertexAiAdapter, 'chat.completions', { messages: [{ role: 'user', content: 'x' }] }, ctx('gemini-2.0-flash', { credentials: { vertexProjectId: 'p', accessToken: 'ya29.stolen' } }));
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ error: { type: 'authentication_error', code: 'UNAUTHENTICATED' } });
  });

  it('embeddings through :predict with token counts', async () => {
    const r = await roundTrip(vertexAiAdapter, 'embeddings', { input: ['one two', 'three'] }, ctx('text-embedding-005'));
    expect(mock.requests.at(-1)!.path).toBe('/v1/projects/sa-project/locations/us-east5/publishers/google/models/text-embedding-005:predict');
    expect(r.body).toEqual({
      object: 'list',
      data: [{ object: 'embedding', embedding: [0.7, 0.5], index: 0 }, { object: 'embedding', embedding: [0.5, 0.5], index: 1 }],
      model: 'text-embedding-005',
      usage: { prompt_tokens: 3, total_tokens: 3 },
    });
    expect(r.usage).toEqual({ prompt: 3, completion: 0, total: 3 });
  });
});
