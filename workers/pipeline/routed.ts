// The request path once a config or guardrails are involved (issue 7): input guardrails, the
// response cache, the routing engine over the config's targets (each target built lazily, its
// params applied, retried and fallen back on provider failures), then output guardrails and the
// cache store. A plain request without config or guardrails never comes here (handler.ts).
import type { ResolvedKey } from '../../src/domain/api-key.ts';
import type { GatewayConfig, GuardrailEntry } from '../../src/domain/config/config-schema.ts';
import { AppError } from '../../src/domain/errors.ts';
import { bufferedResponse } from '../../src/domain/http/buffered-response.ts';
import type { Logger } from '../../src/domain/logger.ts';
import type { UpstreamFetch } from '../contracts.ts';
import { cacheKey, cachePlan, chatCompletionToSse, type CacheStatus, type ResponseCache } from '../cache/response-cache.ts';
import { deniedBody, GUARDRAIL_DENIED_STATUS, GUARDRAIL_FAILED_STATUS, runHooks, withHookResults, type HookResults } from '../guardrails/hooks.ts';
import { SseTextCollector, streamEnding } from '../guardrails/stream-guard.ts';
import { checkDeps } from '../guardrails/saved.ts';
import type { CheckContext, Hook, HookResult } from '../guardrails/types.ts';
import { retryAfterMs, retryCountHeader, route, type Leaf, type Outcome, type Routed, type RoutingDeps } from '../routing/engine.ts';
import { applyParams } from '../routing/inherit.ts';
import { discardAnswer, headerRecord, isEventStream, rebuilt, setHeader, tapped, wholeText } from './answer.ts';
import { callTarget, type GatewayCall, type JsonBody, type TargetResult } from './call-target.ts';
import type { GatewayHeaders } from './gateway-headers.ts';
import type { RequestState } from './request-state.ts';
import { leafTarget, resolveTargets, type TargetDeps } from './resolve-target.ts';

export interface RoutedDeps {
  upstream: UpstreamFetch;
  finish(state: RequestState): void;
  targets: TargetDeps;
  cache: ResponseCache;
  routing: RoutingDeps;
  /** Erroring guardrail checks pass instead of failing (GUARDRAILS_FAIL_OPEN); default: fail closed. */
  guardrailsFailOpen: boolean;
  logger: Logger;
}

export interface RoutePlan {
  config: GatewayConfig | null;
  /** Names the config in the cache key. */
  configIdentity: string;
  /** Organisation defaults, then the config's top-level guardrails. */
  input: Hook[];
  output: Hook[];
  /** The organisation's default output guardrails alone (a target with its own list adds them back). */
  orgOutput: Hook[];
  /** Resolves a target's own guardrail list (inline and saved). */
  hooks(entries: GuardrailEntry[] | undefined, prefix: string): Promise<Hook[]>;
  /** Buffer a streamed body once so several attempts can send it. */
  bufferBody: boolean;
}

const REQUEST_TYPES: Record<string, string> = { 'chat.completions': 'chatComplete', completions: 'complete', embeddings: 'embed', messages: 'messages' };
const te = new TextEncoder();

/** An attempt's accounting waits until routing knows whether its answer is the one the caller gets. */
class AttemptGate {
  private verdict: boolean | null = null;
  private pending = false;
  constructor(private readonly state: RequestState, private readonly finishFn: (s: RequestState) => void) {}
  finish = (_s: RequestState): void => {
    if (this.verdict === null) this.pending = true;
    else if (this.verdict) this.finishFn(this.state);
  };
  decide(winner: boolean): void {
    if (this.verdict !== null) return;
    this.verdict = winner;
    if (winner && this.pending) this.finishFn(this.state);
  }
}

interface Attempt extends Outcome {
  result?: TargetResult;
  error?: AppError;
  gate?: AttemptGate;
}

/** Gateway-side refusals that are really provider failures: they retry and fall back (issue 7 item 3). */
const PROVIDER_FAILURES = new Set(['upstream_unreachable', 'request_timeout']);

export async function serveRouted(call: GatewayCall, h: GatewayHeaders, key: ResolvedKey, plan: RoutePlan, deps: RoutedDeps): Promise<Response> {
  const { state } = call;
  const hookResults: HookResults = { before_request_hooks: [], after_request_hooks: [] };
  const checks = checkDeps(deps.upstream);
  const ctxBase = (): Omit<CheckContext, 'event' | 'request'> => ({
    requestType: REQUEST_TYPES[call.route?.endpoint ?? ''] ?? (call.route?.endpoint ?? 'proxy'),
    metadata: state.metadata ?? {},
    model: typeof call.json?.body.model === 'string' ? call.json.body.model : '',
  });
  const headersForChecks = (): Record<string, string> => {
    const out: Record<string, string> = {};
    call.request.headers.forEach((v, k) => {
      out[k] = v;
    });
    return out;
  };
  const opts = { failOnError: !deps.guardrailsFailOpen };
  let inputFailed = false;

  // 1. Input guardrails, before anything is called or looked up (spec: guardrails, 446 / 246).
  if (call.json && plan.input.length) {
    const run = await runHooks(plan.input, { ...ctxBase(), event: 'beforeRequestHook', request: { json: call.json.body, headers: headersForChecks() } }, checks, opts);
    logBackground(run.background, deps.logger, state);
    hookResults.before_request_hooks = run.results;
    if (run.denied) return denied(state, hookResults, deps);
    inputFailed = run.failed;
    if (run.request) call = { ...call, json: { body: run.request, text: JSON.stringify(run.request) } };
  }

  // 2. The cache, before routing (issue 7 item 5).
  const cacheable = call.json !== null && call.route !== null && call.request.method === 'POST';
  const cp = cachePlan(cacheable ? plan.config?.cache : undefined, h.cacheForceRefresh);
  const cacheStatus: CacheStatus = cp.status;
  let ck: string | null = null;
  const wantsStream = call.json?.body.stream === true;
  if (cp.lookup || cp.store) {
    ck = await cacheKey({ workspaceId: key.workspaceId ?? key.organisationId, provider: plan.configIdentity, endpoint: call.route!.endpoint, namespace: h.cacheNamespace }, call.json!.body);
  }
  if (cp.lookup && ck) {
    const hit = await deps.cache.get(ck);
    const replay = hit ? replayed(hit, wantsStream, call.route!.endpoint, call.json!.body) : null;
    if (replay) {
      state.status = hit!.status;
      state.provider = 'cache';
      if (typeof call.json!.body.model === 'string') state.model = call.json!.body.model;
      state.isStream = wantsStream;
      let response = bufferedResponse(replay.body, hit!.status, { 'content-type': replay.contentType, 'x-gateway-trace-id': state.traceId, 'x-gateway-cache-status': 'HIT' });
      if (plan.output.length || inputFailed) response = await guardOutput(response, call, plan.output, hookResults, inputFailed, checks, opts, ctxBase, headersForChecks, deps, state);
      deps.finish(state);
      return response;
    }
  }

  // 3. Route.
  const gates: AttemptGate[] = [];
  let bodyBytes: ArrayBuffer | null = null;
  if (plan.bufferBody && !call.json && call.request.body && call.request.method !== 'GET' && call.request.method !== 'HEAD') {
    // Buffered once, never changed between attempts (issue 7 item 2).
    bodyBytes = await call.request.arrayBuffer();
  }
  const callWith = async (target: Awaited<ReturnType<typeof leafTarget>>, json: JsonBody | null): Promise<Attempt> => {
    state.provider = target.provider.name;
    state.errorCode = '';
    const request = bodyBytes ? new Request(call.request.url, { method: call.request.method, headers: call.request.headers, body: bodyBytes, signal: call.request.signal }) : call.request;
    const gate = new AttemptGate(state, deps.finish);
    gates.push(gate);
    try {
      const result = await callTarget(target, { ...call, json, request, responseHeaders: { 'x-gateway-cache-status': cacheStatus } }, { upstream: deps.upstream, finish: gate.finish });
      return {
        status: result.status,
        result,
        gate,
        retryAfterMs: result.status >= 400 ? retryAfterMs(headerRecord(result.response)) : null,
        discard: () => {
          gate.decide(false);
          discardAnswer(result.response);
        },
      };
    } catch (err) {
      if (err instanceof AppError && PROVIDER_FAILURES.has(err.code)) {
        state.markUpstreamHeaders();
        return { status: err.status, networkError: true, error: err, gate };
      }
      throw err;
    }
  };
  const callLeaf = async (leaf: Leaf): Promise<Attempt> => {
    const target = await leafTarget(leaf, h, key, deps.targets);
    let json = call.json;
    const own = leaf.settings.input_guardrails;
    if (json && own && own !== plan.config?.input_guardrails) {
      // A target's own input guardrails (reference: per-target hooks): a denial is this target's
      // answer (446), which fallback may move past like any non-2xx.
      const run = await runHooks(await plan.hooks(own, `${leaf.path}.input_guardrails`), { ...ctxBase(), event: 'beforeRequestHook', request: { json: json.body, headers: headersForChecks() } }, checks, opts);
      logBackground(run.background, deps.logger, state);
      hookResults.before_request_hooks.push(...run.results);
      if (run.denied) {
        const response = bufferedResponse(deniedBody(hookResults), GUARDRAIL_DENIED_STATUS, { 'content-type': 'application/json', 'x-gateway-trace-id': state.traceId, 'x-gateway-last-used-option-index': leaf.path });
        state.provider = target.provider.name;
        state.errorCode = 'hooks_failed';
        return { status: GUARDRAIL_DENIED_STATUS, result: { response, status: GUARDRAIL_DENIED_STATUS } };
      }
      inputFailed ||= run.failed;
      if (run.request) json = { body: run.request, text: JSON.stringify(run.request) };
    }
    if (json && call.route) {
      // Per-target params (issue 7 item 2): applied to a copy; the caller's body stays as it came.
      const body = applyParams(json.body, leaf.settings);
      if (body !== json.body) json = { body, text: JSON.stringify(body) };
      delete target.overrideParams;
    }
    return callWith(target, json);
  };

  let routed: Routed<Attempt>;
  try {
    if (plan.config) {
      routed = await route(plan.config, { metadata: state.metadata ?? {}, params: call.json?.body ?? {}, url: { pathname: `/v1/${call.path.split('?')[0]}` } }, callLeaf, deps.routing);
    } else {
      const { targets } = await resolveTargets(h, key, deps.targets);
      const outcome = await callWith(targets[0]!, call.json);
      routed = { outcome, leaf: { path: 'config', node: {}, settings: {} }, retries: 0, exhausted: false };
    }
  } catch (err) {
    for (const g of gates) g.decide(false);
    if (err instanceof AppError) err.headers = { ...err.headers, 'x-gateway-cache-status': cacheStatus };
    throw err;
  }
  const o = routed.outcome;
  // A target with its own output guardrails uses them (with the organisation's defaults).
  const leafOutput = routed.leaf.settings.output_guardrails;
  const output = plan.config && leafOutput !== plan.config.output_guardrails ? [...plan.orgOutput, ...(await plan.hooks(leafOutput, `${routed.leaf.path}.output_guardrails`))] : plan.output;
  // Attempts the caller will not see are never accounted; the answer's is, once the output
  // guardrails below have had their say on its status.
  for (const g of gates) if (g !== o.gate) g.decide(false);
  const routeHeaders: Record<string, string> = { 'x-gateway-retry-attempt-count': retryCountHeader(routed), 'x-gateway-cache-status': cacheStatus };
  if (plan.config) routeHeaders['x-gateway-last-used-option-index'] = routed.leaf.path;
  if (!o.result) {
    // Every attempt failed to reach a provider (or timed out): the last failure answers.
    throw Object.assign(o.error!, { headers: { ...o.error!.headers, ...routeHeaders } });
  }
  state.status = o.status;
  state.errorCode = o.status >= 400 ? `upstream_${o.status}` : '';
  let response = o.result.response;
  for (const k in routeHeaders) setHeader(response, k, routeHeaders[k]!);
  const ok = o.status >= 200 && o.status < 300;

  // 4. Store (issue 7 item 5): 2xx only; streamed answers stored as SSE once complete.
  if (ok && cp.store && ck) {
    const cacheKeyFinal = ck;
    const settings = plan.config!.cache!;
    if (isEventStream(response)) {
      const parts: string[] = [];
      const td = new TextDecoder();
      let size = 0;
      response = tapped(
        response,
        (c) => {
          size += c.byteLength;
          if (size <= 1_048_576) parts.push(td.decode(c, { stream: true }));
          return c;
        },
        () => {
          if (size <= 1_048_576) void deps.cache.put(cacheKeyFinal, { status: o.status, contentType: 'text/event-stream', kind: 'sse', body: parts.join('') + td.decode() }, settings);
          return null;
        },
      );
    } else {
      const headers = headerRecord(response);
      const text = await wholeText(response);
      void deps.cache.put(cacheKeyFinal, { status: o.status, contentType: String(headers['content-type'] ?? 'application/json'), kind: 'json', body: text }, settings);
      response = rebuilt(text, o.status, headers);
    }
  }

  // 5. Output guardrails on 2xx answers (and 246 when an input guardrail failed without deny).
  if (ok && call.json && (output.length || inputFailed)) {
    response = await guardOutput(response, call, output, hookResults, inputFailed, checks, opts, ctxBase, headersForChecks, deps, state);
  }
  if (o.gate) o.gate.decide(true);
  else deps.finish(state); // a target's own guardrail answered: no provider call to wait for
  return response;
}

function replayed(hit: { kind: 'json' | 'sse'; body: string; contentType: string }, wantsStream: boolean, endpoint: string, body: Record<string, unknown>): { body: string; contentType: string } | null {
  if (!wantsStream) return hit.kind === 'json' ? { body: hit.body, contentType: hit.contentType } : null;
  if (hit.kind === 'sse') return { body: hit.body, contentType: 'text/event-stream; charset=utf-8' };
  if (endpoint !== 'chat.completions') return null;
  const so = body.stream_options as { include_usage?: unknown } | undefined;
  const sse = chatCompletionToSse(hit.body, so?.include_usage === true);
  return sse ? { body: sse, contentType: 'text/event-stream; charset=utf-8' } : null;
}

function denied(state: RequestState, hookResults: HookResults, deps: RoutedDeps): Response {
  state.status = GUARDRAIL_DENIED_STATUS;
  state.errorCode = 'hooks_failed';
  deps.finish(state);
  return bufferedResponse(deniedBody(hookResults), GUARDRAIL_DENIED_STATUS, { 'content-type': 'application/json', 'x-gateway-trace-id': state.traceId });
}

function logBackground(p: Promise<HookResult[]>, logger: Logger, state: RequestState): void {
  void p.then((results) => {
    const failed = results.filter((r) => !r.verdict).map((r) => r.id);
    if (failed.length) logger.warn('async guardrail failed', { trace_id: state.traceId, hooks: failed });
  });
}

/**
 * Output guardrails. JSON answers: checked whole, rewritten by mutators, 446 on deny, 246 when a
 * hook failed. Streams use tail mode (stream-guard.ts): chunks are relayed live while their text
 * is assembled, the final `[DONE]` is held until the checks ran, and a denial ends the stream
 * with an error event (the status line was already sent).
 */
async function guardOutput(
  response: Response,
  call: GatewayCall,
  output: Hook[],
  hookResults: HookResults,
  inputFailed: boolean,
  checks: ReturnType<typeof checkDeps>,
  opts: { failOnError: boolean },
  ctxBase: () => Omit<CheckContext, 'event' | 'request'>,
  headersForChecks: () => Record<string, string>,
  deps: RoutedDeps,
  state: RequestState,
): Promise<Response> {
  const request = { json: call.json!.body, headers: headersForChecks() };
  if (isEventStream(response)) {
    const collector = new SseTextCollector();
    return tapped(
      response,
      (c) => {
        const out = collector.push(c);
        return out ? te.encode(out) : null;
      },
      async () => {
        const rest = collector.flush();
        let verdict = { denied: false, failed: inputFailed, hookResults: hookResults as unknown };
        if (output.length) {
          const run = await runHooks(output, { ...ctxBase(), event: 'afterRequestHook', request, response: { json: null, status: response.status, text: collector.text } }, checks, opts);
          logBackground(run.background, deps.logger, state);
          hookResults.after_request_hooks = run.results;
          verdict = { denied: run.denied, failed: run.failed || inputFailed, hookResults };
          if (run.denied) state.errorCode = 'hooks_failed';
        }
        return te.encode(rest + streamEnding(verdict, collector.sawDone));
      },
    );
  }
  const headers = headerRecord(response);
  const text = await wholeText(response);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return rebuilt(text, response.status, headers);
  }
  let failed = inputFailed;
  if (output.length) {
    const run = await runHooks(output, { ...ctxBase(), event: 'afterRequestHook', request, response: { json, status: response.status } }, checks, opts);
    logBackground(run.background, deps.logger, state);
    hookResults.after_request_hooks = run.results;
    if (run.denied) {
      state.status = GUARDRAIL_DENIED_STATUS;
      state.errorCode = 'hooks_failed';
      return bufferedResponse(deniedBody(hookResults), GUARDRAIL_DENIED_STATUS, { ...headers, 'content-type': 'application/json' });
    }
    if (run.response !== undefined) json = run.response;
    failed ||= run.failed;
  }
  if (failed) {
    state.status = GUARDRAIL_FAILED_STATUS;
    return rebuilt(withHookResults(json, hookResults), GUARDRAIL_FAILED_STATUS, headers);
  }
  return rebuilt(JSON.stringify(json), response.status, headers);
}
