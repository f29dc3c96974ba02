// callTarget with a translating adapter (the contract the anthropic/bedrock/... adapters fill):
// request(), response(), error(), usage() and stream() are each applied where the contract says.
import { describe, it, expect } from 'vitest';
import type { ResolvedKey } from '../../../src/domain/api-key.ts';
import type { UpstreamFetch, UpstreamRequest } from '../../../workers/contracts.ts';
import { matchEndpoint } from '../../../workers/endpoints/table.ts';
import { callTarget, parseJsonBody, type GatewayCall } from '../../../workers/pipeline/call-target.ts';
import { RequestState } from '../../../workers/pipeline/request-state.ts';
import type { ProviderAdapter, StreamTranslator, TokenCount } from '../../../workers/providers/contract.ts';

const te = new TextEncoder();
const key: ResolvedKey = { id: 'k', organisationId: 'o', workspaceId: 'w', userId: null, type: 'workspace-service', status: 'active', scopes: [], expiresAt: null, rateLimits: [], usageLimits: null, defaults: {}, version: 1 };

// A toy provider: `{prompt}` in, `{text, used}` out; its stream is lines of text.
const toy: ProviderAdapter = {
  name: 'toy',
  baseUrl: () => 'https://toy.example/api',
  authHeaders: (ctx) => ({ 'x-toy-key': ctx.credentials.apiKey ?? '' }),
  forwardedHeaders: ['toy-version'],
  endpoints: {
    messages: {
      request: (body, ctx) => ({ url: `${ctx.customHost ?? 'https://toy.example/api'}/generate`, method: 'POST', headers: { 'x-toy-model': ctx.model }, body: JSON.stringify({ prompt: (body.messages as { content: string }[])[0]!.content, stream: ctx.stream }) }),
      response: (json) => ({ type: 'message', content: [{ type: 'text', text: (json as { text: string }).text }] }),
      error: (status, json) => ({ error: { message: (json as { problem: string }).problem, type: 'upstream_error', param: null, code: `toy_${status}` } }),
      usage: (json) => ({ prompt: (json as { used: number[] }).used[0]!, completion: (json as { used: number[] }).used[1]!, total: 99 }),
      stream: (): StreamTranslator => {
        let usage: TokenCount | null = null;
        let buf = '';
        return {
          push(chunk) {
            buf += new TextDecoder().decode(chunk);
            const lines = buf.split('\n');
            buf = lines.pop()!;
            return lines.map((l) => `data: ${JSON.stringify({ delta: l })}\n\n`).join('');
          },
          end() {
            usage = { prompt: 1, completion: 2, total: 3 };
            return 'data: [DONE]\n\n';
          },
          get usage() {
            return usage;
          },
        };
      },
    },
  },
};

function fakeUpstream(status: number, contentType: string, chunks: string[]): { fetch: UpstreamFetch; seen: { url: string; req: UpstreamRequest }[] } {
  const seen: { url: string; req: UpstreamRequest }[] = [];
  const fetch: UpstreamFetch = async (url, req) => {
    seen.push({ url, req });
    return {
      status,
      headers: { 'content-type': contentType },
      bytes: async () => te.encode(chunks.join('')),
      stream: () => new ReadableStream({ start(c) { for (const x of chunks) c.enqueue(te.encode(x)); c.close(); } }),
      discard: () => {},
    };
  };
  return { fetch, seen };
}

function setup(body: Record<string, unknown>, upstream: ReturnType<typeof fakeUpstream>) {
  const text = JSON.stringify(body);
  const request = new Request('http://gw/v1/messages', { method: 'POST', headers: { 'toy-version': '3', 'content-type': 'application/json' }, body: text });
  const state = new RequestState('t', 'messages', 'POST');
  state.key = key;
  const call: GatewayCall = { request, path: 'messages', route: matchEndpoint('POST', 'messages'), json: parseJsonBody(text, 'messages'), state };
  const finished: RequestState[] = [];
  let accounted!: () => void;
  const done = new Promise<void>((r) => (accounted = r));
  const target = { provider: toy, credentials: { apiKey: 'tk' }, forwardHeaders: [] };
  const finish = (st: RequestState) => {
    finished.push(st);
    accounted();
  };
  return { call, state, finished, done, run: () => callTarget(target, call, { upstream: upstream.fetch, finish }) };
}

describe('callTarget with a translating adapter', () => {
  it('request(): URL, adapter headers, provider forwarded headers and auth; response() and usage() on the JSON answer', async () => {
    const up = fakeUpstream(200, 'application/json', [JSON.stringify({ text: 'hey', used: [4, 5] })]);
    const s = setup({ model: 'toy-1', messages: [{ role: 'user', content: 'hi' }] }, up);
    const { response, status } = await s.run();
    expect(status).toBe(200);
    expect(await response.json()).toEqual({ type: 'message', content: [{ type: 'text', text: 'hey' }] });
    expect(up.seen[0]!.url).toBe('https://toy.example/api/generate');
    expect(up.seen[0]!.req.headers).toMatchObject({ 'x-toy-model': 'toy-1', 'x-toy-key': 'tk', 'toy-version': '3', 'content-type': 'application/json' });
    expect(up.seen[0]!.req.body).toBe(JSON.stringify({ prompt: 'hi', stream: false }));
    await s.done;
    expect(s.finished[0]!.tokens).toEqual({ prompt: 4, completion: 5, total: 99 });
  });

  it('error(): the provider error becomes the OpenAI error shape, status kept', async () => {
    const up = fakeUpstream(400, 'application/json', [JSON.stringify({ problem: 'bad prompt' })]);
    const s = setup({ model: 'toy-1', messages: [{ role: 'user', content: 'hi' }] }, up);
    const { response } = await s.run();
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: { message: 'bad prompt', type: 'upstream_error', param: null, code: 'toy_400' } });
    await s.done;
    expect(s.finished[0]).toMatchObject({ status: 400, errorCode: 'upstream_400' });
  });

  it('stream(): provider bytes (split anywhere) translated to SSE, usage from the translator', async () => {
    const up = fakeUpstream(200, 'application/x-ndjson', ['o', 'ne\ntw', 'o\n']);
    const s = setup({ model: 'toy-1', messages: [{ role: 'user', content: 'hi' }], stream: true }, up);
    const { response } = await s.run();
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(await response.text()).toBe('data: {"delta":"one"}\n\ndata: {"delta":"two"}\n\ndata: [DONE]\n\n');
    expect(up.seen[0]!.req.body).toBe(JSON.stringify({ prompt: 'hi', stream: true }));
    expect(s.finished[0]).toMatchObject({ isStream: true, tokens: { prompt: 1, completion: 2, total: 3 } });
  });
});
