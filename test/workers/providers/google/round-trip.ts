// Sends an adapter's UpstreamCall with real fetch and translates the real answer back, the way
// the pipeline will: request() + authHeaders() -> fetch -> error()/response()/usage() or stream().
import type { UpstreamFetch } from '../../../../workers/contracts.ts';
import type { CallContext, EndpointName, ProviderAdapter, TokenCount, UpstreamCall } from '../../../../workers/providers/contract.ts';

/** ctx.upstream for tests: fetch to the mock. */
export const fetchUpstream: UpstreamFetch = async (url, request) => {
  const res = await fetch(url, { method: request.method, headers: request.headers, body: request.body as BodyInit | null, signal: request.signal });
  const headers: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    headers[k] = v;
  });
  return {
    status: res.status,
    headers,
    bytes: async () => new Uint8Array(await res.arrayBuffer()),
    stream: () => res.body ?? new ReadableStream(),
    discard: () => void res.body?.cancel(),
  };
};

export function context(partial: Partial<CallContext> & Pick<CallContext, 'provider' | 'model'>): CallContext {
  return { credentials: {}, stream: false, upstream: fetchUpstream, now: () => Date.now(), ...partial };
}

export interface RoundTrip {
  call: UpstreamCall;
  status: number;
  contentType: string;
  /** JSON answers: response() (or the JSON itself when absent); errors: error(). */
  body?: unknown;
  /** Streams: everything the translator emitted. */
  text?: string;
  usage: TokenCount | null;
}

export async function roundTrip(adapter: ProviderAdapter, endpoint: EndpointName, body: Record<string, unknown>, ctx: CallContext): Promise<RoundTrip> {
  const ep = adapter.endpoints[endpoint];
  if (!ep) throw new Error(`${adapter.name} has no ${endpoint}`);
  const call = await ep.request(body, ctx);
  const auth = await adapter.authHeaders(ctx);
  const res = await fetch(call.url, { method: call.method, headers: { ...call.headers, ...auth }, body: call.body as BodyInit | null });
  const contentType = res.headers.get('content-type') ?? '';
  if (res.status >= 400) {
    const json: unknown = await res.json();
    return { call, status: res.status, contentType, body: ep.error ? ep.error(res.status, json, ctx) : json, usage: null };
  }
  if (ctx.stream && ep.stream) {
    const translator = ep.stream(ctx);
    let text = '';
    const reader = res.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += translator.push(value);
    }
    text += translator.end();
    return { call, status: res.status, contentType, text, usage: translator.usage };
  }
  const json: unknown = await res.json();
  return { call, status: res.status, contentType, body: ep.response ? ep.response(json, ctx) : json, usage: ep.usage ? ep.usage(json) : null };
}

/** The JSON payloads of OpenAI SSE text (`[DONE]` as the string). */
export function sseData(text: string): unknown[] {
  return text
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => e.slice(6))
    .map((d) => (d === '[DONE]' ? d : (JSON.parse(d) as unknown)));
}

/** Anthropic-style SSE: event names and their JSON. */
export function namedEvents(text: string): { event: string; data: Record<string, unknown> }[] {
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? '';
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? '{}';
      return { event, data: JSON.parse(data) as Record<string, unknown> };
    });
}

/** Feeds bytes one at a time: every split point, including inside UTF-8 and frames. */
export function pushBytewise(translator: { push(c: Uint8Array): string }, bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += translator.push(bytes.subarray(i, i + 1));
  return out;
}

/** Text content and tool-call arguments accumulated from OpenAI chunks. */
export function collectChunks(chunks: unknown[]): { content: string; tools: { id?: string; name?: string; arguments: string }[]; finish: unknown; usage: unknown; role: unknown } {
  let content = '';
  let finish: unknown = null;
  let usage: unknown = null;
  let role: unknown = null;
  const tools: { id?: string; name?: string; arguments: string }[] = [];
  for (const c of chunks) {
    if (c === '[DONE]') continue;
    const chunk = c as { choices: { delta: Record<string, unknown>; finish_reason: unknown }[]; usage?: unknown };
    if (chunk.usage) usage = chunk.usage;
    for (const choice of chunk.choices ?? []) {
      if (choice.delta.role) role = choice.delta.role;
      if (typeof choice.delta.content === 'string') content += choice.delta.content;
      for (const t of (choice.delta.tool_calls as { index: number; id?: string; function?: { name?: string; arguments?: string } }[]) ?? []) {
        const slot = (tools[t.index] ??= { arguments: '' });
        if (t.id) slot.id = t.id;
        if (t.function?.name) slot.name = t.function.name;
        slot.arguments += t.function?.arguments ?? '';
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
  }
  return { content, tools, finish, usage, role };
}
