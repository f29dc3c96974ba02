import { AppError, invalidParameter } from '../../src/domain/errors.ts';
import { bufferedResponse, type HeaderRecord } from '../../src/domain/http/buffered-response.ts';
import type { Tracer } from '../../src/domain/tracing.ts';
import type { UpstreamFetch, UpstreamResponse } from '../contracts.ts';
import type { EndpointRoute } from '../endpoints/table.ts';
import type { CallContext, EndpointAdapter, TokenCount } from '../providers/contract.ts';
import { afterResponse } from './after-response.ts';
import type { RequestState } from './request-state.ts';
import type { Target } from './resolve-target.ts';
import { startUpstreamSpan, tracedUpstream } from './request-span.ts';
import { SseUsageTap } from './sse-usage-tap.ts';
import { relayStream } from './stream-relay.ts';
import { tokensFromUsage, type Tokens } from './tokens.ts';
import { passThroughRequestHeaders, requestHeadersFor, responseHeadersFrom } from './upstream-headers.ts';

/** The caller's JSON body, parsed once; `text` is what arrived (sent on unchanged when possible). */
export interface JsonBody {
  body: Record<string, unknown>;
  text: string;
}

/** One data-plane request, as every target of a config sees it. */
export interface GatewayCall {
  request: Request;
  /** The path after `/v1/` (after `/v1/proxy/` when forced), with the query string. */
  path: string;
  /** The built-in route; null for pass-through. */
  route: EndpointRoute | null;
  json: JsonBody | null;
  state: RequestState;
  /** Headers the gateway adds to this answer (x-gateway-cache-status). */
  responseHeaders?: Record<string, string>;
}

export interface CallDeps {
  upstream: UpstreamFetch;
  /** Accounts the request once its answer is complete. */
  finish(state: RequestState): void;
  /** Opens a span per provider attempt when the request is traced. */
  tracer?: Tracer;
}

/**
 * A provider's answer (gateway-side refusals are thrown as AppError instead, and never fall
 * back: reference gateway, x-gateway-gateway-exception).
 */
export interface TargetResult {
  response: Response;
  /** The status the caller sees (what fallback and retry decide on). */
  status: number;
}

/** The spec's default moderation model (spec: Data-plane endpoints, POST /moderations). */
export const DEFAULT_MODERATION_MODEL = 'text-moderation-latest';
const USAGE_IN_STREAM = new Set(['chat.completions', 'completions']);
const te = new TextEncoder();
const td = new TextDecoder();

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(td.decode(bytes));
  } catch {
    return undefined;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The body for this target: override_params merged, defaults filled, usage asked for in relayed streams. */
function bodyFor(call: GatewayCall, target: Target, relayed: boolean): { body: Record<string, unknown>; text: string; injectedUsage: boolean } {
  const json = call.json!;
  let body = json.body;
  let changed = false;
  if (target.overrideParams) {
    body = { ...body, ...target.overrideParams };
    changed = true;
  }
  if (call.route?.endpoint === 'moderations' && body.model === undefined) {
    body = { ...body, model: DEFAULT_MODERATION_MODEL };
    changed = true;
  }
  let injectedUsage = false;
  const so = body.stream_options as { include_usage?: unknown } | null | undefined;
  if (relayed && body.stream === true && USAGE_IN_STREAM.has(call.route!.endpoint) && so?.include_usage !== true) {
    // Ask the provider for the final usage chunk; the caller does not see it (sse-usage-tap).
    body = { ...body, stream_options: { ...(isObject(so) ? so : {}), include_usage: true } };
    changed = injectedUsage = true;
  }
  return { body, text: changed ? JSON.stringify(body) : json.text, injectedUsage };
}

const timeoutError = (ms: number) => new AppError(408, 'timeout_error', 'request_timeout', `Request exceeded the timeout sent in the request: ${ms}ms`);

/** Sends upstream; answers 408 when the request timeout passes before the provider's headers. */
async function send(deps: CallDeps, url: string, init: Parameters<UpstreamFetch>[1], target: Target, request: Request, state: RequestState): Promise<UpstreamResponse> {
  const ms = target.requestTimeoutMs;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timedOut = false;
  if (ms) {
    const ac = new AbortController();
    timer = setTimeout(() => {
      timedOut = true;
      ac.abort();
    }, ms);
    init.signal = AbortSignal.any([request.signal, ac.signal]);
  }
  try {
    // Traced requests send their W3C traceparent to the provider (issue 9 item 5).
    return await tracedUpstream(startUpstreamSpan(deps.tracer, state, target.provider.name, url, init.method, init.headers), deps.upstream(url, init));
  } catch (err) {
    if (timedOut) throw timeoutError(ms!);
    if (request.signal.aborted) throw new AppError(499, 'invalid_request_error', 'client_closed_request', 'The client closed the request.');
    if (err instanceof AppError) throw err;
    throw new AppError(502, 'upstream_error', 'upstream_unreachable', `Could not reach ${target.provider.name}: ${(err as Error).message ?? err}`);
  } finally {
    if (timer) clearTimeout(timer);
  }
}

function tokenCount(t: TokenCount | null | undefined): Tokens | null {
  return t ? { prompt: t.prompt, completion: t.completion, total: t.total, ...(t.cachedPrompt !== undefined ? { cachedPrompt: t.cachedPrompt } : {}) } : null;
}

/**
 * Calls one target (issue 6; ARCHITECTURE.md step 5): the adapter's translation when it has one
 * for this endpoint, otherwise the same path relayed to an OpenAI-compatible upstream; then the
 * answer back (JSON, SSE or bytes), tokens counted, the request accounted when its body is done.
 * The routing engine calls this once per target it tries.
 */
export async function callTarget(target: Target, call: GatewayCall, deps: CallDeps): Promise<TargetResult> {
  const { state, request, route } = call;
  const provider = target.provider;
  const body = call.json?.body;
  if (body) {
    if (typeof body.model === 'string') state.model = body.model;
    state.isStream = body.stream === true;
  }
  const ctx: CallContext = {
    provider: provider.name,
    credentials: target.credentials,
    ...(target.customHost ? { customHost: target.customHost } : {}),
    model: state.model,
    stream: state.isStream,
    upstream: deps.upstream,
    now: Date.now,
  };
  const endpoint: EndpointAdapter | undefined = route?.adapterEndpoint ? provider.endpoints[route.adapterEndpoint] : undefined;
  const extra: Record<string, string> = { 'x-gateway-trace-id': state.traceId, 'x-gateway-provider': provider.name };
  if (target.optionIndex) extra['x-gateway-last-used-option-index'] = target.optionIndex;
  if (call.responseHeaders) Object.assign(extra, call.responseHeaders);

  let res: UpstreamResponse;
  let injectedUsage = false;
  if (endpoint && call.json) {
    const prepared = bodyFor(call, target, false);
    if (typeof prepared.body.model === 'string') ctx.model = state.model = prepared.body.model;
    const upstreamCall = await endpoint.request(prepared.body, ctx);
    const headers = requestHeadersFor(request.headers, provider.forwardedHeaders, target.forwardHeaders, 'application/json', await provider.authHeaders(ctx));
    if (target.extraHeaders) Object.assign(headers, lowerCased(target.extraHeaders));
    Object.assign(headers, upstreamCall.headers);
    res = await send(deps, upstreamCall.url, { method: upstreamCall.method, headers, body: upstreamCall.body, signal: request.signal }, target, request, state);
  } else {
    let outBody: string | ReadableStream<Uint8Array> | null = null;
    let contentType: string | null = null;
    if (call.json) {
      const prepared = bodyFor(call, target, true);
      if (typeof prepared.body.model === 'string') ctx.model = state.model = prepared.body.model;
      outBody = prepared.text;
      injectedUsage = prepared.injectedUsage;
      contentType = 'application/json';
    } else if (request.method !== 'GET' && request.method !== 'HEAD' && (route === null || route.body === 'stream')) {
      contentType = request.headers.get('content-type');
      if (route === null && target.overrideParams && contentType?.includes('json')) {
        // Config override_params apply to pass-through JSON too (reference gateway: proxyHandler).
        const parsed = parseJsonBody(await request.text(), 'proxy');
        outBody = JSON.stringify({ ...parsed.body, ...target.overrideParams });
      } else outBody = request.body;
    }
    const url = provider.passThroughUrl ? provider.passThroughUrl(call.path, ctx) : `${target.customHost ?? provider.baseUrl(ctx)}/${call.path}`;
    const signs = provider.signPassThrough !== undefined;
    const auth = signs ? {} : await provider.authHeaders(ctx);
    let headers = route
      ? requestHeadersFor(request.headers, provider.forwardedHeaders, target.forwardHeaders, contentType, auth)
      : passThroughRequestHeaders(request.headers, target.forwardHeaders, auth);
    if (target.extraHeaders) headers = { ...lowerCased(target.extraHeaders), ...headers };
    let sendUrl = url;
    let sendBody: string | Uint8Array | ReadableStream<Uint8Array> | null = outBody;
    if (signs) {
      // A signature covers the body (SigV4): the one case where a relayed body is read whole first.
      const bytes = outBody instanceof ReadableStream ? new Uint8Array(await new Response(outBody).arrayBuffer()) : outBody;
      const signed = await provider.signPassThrough!({ url, method: request.method, headers, body: bytes }, ctx);
      sendUrl = signed.url;
      headers = signed.headers;
      sendBody = signed.body;
    } else if (outBody instanceof ReadableStream) {
      const length = request.headers.get('content-length');
      if (length) headers['content-length'] = length;
    }
    res = await send(deps, sendUrl, { method: request.method, headers, body: sendBody, signal: request.signal }, target, request, state);
  }
  state.markUpstreamHeaders();
  state.status = res.status;
  if (res.status >= 400) state.errorCode = `upstream_${res.status}`;
  const headers = responseHeadersFrom(res.headers, extra);
  const contentType = String(res.headers['content-type'] ?? '');
  const isSse = contentType.includes('text/event-stream');
  const result = (response: Response): TargetResult => ({ response, status: res.status });

  // Pass-through: the provider's answer exactly as sent; tokens read on the side.
  if (!route) return result(observe(res, headers, isSse, contentType, call, deps));

  if (endpoint) {
    if (res.status >= 400) {
      const bytes = await res.bytes();
      const json = parseJson(bytes);
      if (endpoint.error && json !== undefined) {
        const out = JSON.stringify(endpoint.error(res.status, json, ctx));
        afterResponse(() => deps.finish(state));
        return result(bufferedResponse(out, res.status, { ...headers, 'content-type': 'application/json' }));
      }
      afterResponse(() => deps.finish(state));
      return result(bufferedResponse(bytes, res.status, headers));
    }
    if (state.isStream && endpoint.stream) {
      const translator = endpoint.stream(ctx);
      const out = relayStream(
        res.stream(),
        res.status,
        { ...headers, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' },
        {
          push: (chunk) => {
            const text = translator.push(chunk);
            return text ? te.encode(text) : null;
          },
          end: () => {
            const text = translator.end();
            return text ? te.encode(text) : null;
          },
          complete: (code) => {
            state.tokens = tokenCount(translator.usage) ?? state.tokens;
            state.streamEnded(code);
            deps.finish(state);
          },
        },
        () => request.signal.aborted,
      );
      return result(out);
    }
    if (!isSse) {
      const bytes = await res.bytes();
      const json = parseJson(bytes);
      if (json === undefined) {
        // Not JSON (a provider's HTML error page, audio): nothing to translate.
        afterResponse(() => deps.finish(state));
        return result(bufferedResponse(bytes, res.status, headers));
      }
      state.tokens = tokenCount(endpoint.usage?.(json)) ?? tokensFromUsage(isObject(json) ? json.usage : undefined) ?? state.tokens;
      const out = endpoint.response ? endpoint.response(json, ctx) : json;
      afterResponse(() => deps.finish(state));
      return result(bufferedResponse(JSON.stringify(out), res.status, { ...headers, 'content-type': 'application/json' }));
    }
  }

  if (isSse) {
    state.isStream = true;
    const tap = new SseUsageTap({ hideUsageChunk: injectedUsage });
    return result(
      relayStream(res.stream(), res.status, headers, {
        push: (c) => tap.push(c),
        end: () => tap.end(),
        complete: (code) => {
          if (tap.tokens) state.tokens = tap.tokens;
          state.streamEnded(code);
          deps.finish(state);
        },
      }, () => request.signal.aborted),
    );
  }
  if (contentType.includes('json') || res.status >= 400) {
    const bytes = await res.bytes();
    if (route.endpoint === 'rerank' && res.status < 300) {
      const json = parseJson(bytes);
      if (isObject(json)) {
        const out = rerankResult(json, provider.name, state);
        readUsage(out, state);
        afterResponse(() => deps.finish(state));
        return result(bufferedResponse(JSON.stringify(out), res.status, { ...headers, 'content-type': 'application/json' }));
      }
    }
    // Usage is read after the answer is handed back, so it never delays the caller.
    afterResponse(() => {
      readUsage(parseJson(bytes), state);
      deps.finish(state);
    });
    return result(bufferedResponse(bytes, res.status, headers));
  }
  // Bytes (speech audio, file contents): relayed as they arrive.
  return result(relayStream(res.stream(), res.status, headers, { push: (c) => c, end: () => null, complete: (code) => finishWith(state, code, deps) }, () => request.signal.aborted));
}

function lowerCased(h: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k in h) out[k.toLowerCase()] = h[k]!;
  return out;
}

function finishWith(state: RequestState, code: string, deps: CallDeps): void {
  state.streamEnded(code);
  deps.finish(state);
}

function readUsage(json: unknown, state: RequestState): void {
  if (!isObject(json)) return;
  state.tokens = tokensFromUsage(json.usage) ?? state.tokens;
  if (!state.model && typeof json.model === 'string') state.model = json.model;
}

/** The spec's rerank result (spec: Rerank result): object `list`, results with `document.text`, the provider named. */
function rerankResult(json: Record<string, unknown>, provider: string, state: RequestState): Record<string, unknown> {
  const results = Array.isArray(json.results)
    ? json.results.map((r: unknown) => {
        if (!isObject(r)) return r;
        const doc = r.document;
        return typeof doc === 'string' ? { ...r, document: { text: doc } } : r;
      })
    : [];
  return { ...json, object: 'list', results, model: json.model ?? state.model, id: json.id ?? state.requestId, provider };
}

// Up to this much of a pass-through JSON answer is kept on the side to read its usage.
const MAX_OBSERVED_BYTES = 4 * 1024 * 1024;

/** Pass-through answer: bytes unchanged, in the provider's chunks; usage picked up on the side. */
function observe(res: UpstreamResponse, headers: HeaderRecord, isSse: boolean, contentType: string, call: GatewayCall, deps: CallDeps): Response {
  const { state } = call;
  if (isSse) state.isStream = true;
  const tap = isSse ? new SseUsageTap({ hideUsageChunk: false }) : null;
  const keep = !isSse && contentType.includes('json') ? ([] as Uint8Array[]) : null;
  let kept = 0;
  return relayStream(
    res.stream(),
    res.status,
    headers,
    {
      push: (chunk) => {
        if (tap) tap.push(chunk);
        else if (keep && kept + chunk.byteLength <= MAX_OBSERVED_BYTES) {
          keep.push(chunk);
          kept += chunk.byteLength;
        }
        return chunk;
      },
      end: () => {
        tap?.end();
        return null;
      },
      complete: (code) => {
        if (tap?.tokens) state.tokens = tap.tokens;
        if (keep && !code) {
          const all = new Uint8Array(kept);
          let at = 0;
          for (const c of keep) {
            all.set(c, at);
            at += c.byteLength;
          }
          readUsage(parseJson(all), state);
        }
        finishWith(state, code, deps);
      },
    },
    () => call.request.signal.aborted,
  );
}

/** Validates a JSON body just enough to route and account (the provider judges the rest). */
export function parseJsonBody(text: string, endpoint: string): JsonBody {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AppError(400, 'invalid_request_error', 'invalid_json', 'The request body is not valid JSON.', 'body');
  }
  if (!isObject(body)) throw invalidParameter('body', 'The request body must be a JSON object.');
  if (body.model !== undefined && typeof body.model !== 'string') throw invalidParameter('model', 'model must be a string.');
  if (endpoint === 'chat.completions') {
    if (typeof body.model !== 'string' || !body.model) throw invalidParameter('model', 'model is required (a string).');
    if (!Array.isArray(body.messages)) throw invalidParameter('messages', 'messages is required (an array).');
  }
  return { body, text };
}
