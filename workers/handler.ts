import { AppError, errorResponse, toAppError } from '../src/domain/errors.ts';
import type { Logger } from '../src/domain/logger.ts';
import type { RequestMetrics } from '../src/domain/metrics.ts';
import type { TrustedHosts } from '../src/domain/net/custom-host.ts';
import { DATA_PLANE_SCOPE } from '../src/domain/scopes.ts';
import { NO_TRACER, type Tracer } from '../src/domain/tracing.ts';
import type { UsageRecord } from '../src/domain/usage-record.ts';
import type { KeyHasher, ModelCatalogue, UpstreamFetch } from './contracts.ts';
import type { ProviderDirectory } from './providers/directory.ts';
import { catalogueResponse, wantsCatalogue } from './endpoints/models.ts';
import { realtimeUpstream, type RealtimeUpstream } from './endpoints/realtime.ts';
import { matchEndpoint, type EndpointRoute } from './endpoints/table.ts';
import { authenticate } from './pipeline/authenticate.ts';
import { callTarget, parseJsonBody, type GatewayCall } from './pipeline/call-target.ts';
import { readGatewayHeaders, type GatewayHeaders } from './pipeline/gateway-headers.ts';
import { headersForLog } from './pipeline/log-headers.ts';
import { accountRequest, admitRequest, withLimitHeaders, type LimitDeps } from './limits/request-limits.ts';
import { RequestState } from './pipeline/request-state.ts';
import { endRequestSpan, startRequestSpan, stepSpan, traced } from './pipeline/request-span.ts';
import { assertSavedOnly, workspaceSettings } from './pipeline/workspace-settings.ts';
import { resolveTargets } from './pipeline/resolve-target.ts';
import { withIdleTimeout, isEventStream } from './pipeline/answer.ts';
import { mayRetry, resolveConfig, type ConfigChoice } from './pipeline/config-source.ts';
import { serveRouted, type RoutePlan, type RoutedDeps } from './pipeline/routed.ts';
import { ResponseCache } from './cache/response-cache.ts';
import { guardrailLookup, hooksFor, orgDefaults, type OrgDefaults } from './guardrails/saved.ts';
import type { Hook } from './guardrails/types.ts';
import { CircuitBreaker, DEFAULT_BREAKER } from './routing/circuit-breaker.ts';
import type { Leaf, RoutingDeps } from './routing/engine.ts';
import { MemoryStore, type SharedStore } from '../src/domain/store.ts';
import type { ResolvedKey } from '../src/domain/api-key.ts';
import type { KeyCache } from './sync/key-cache.ts';
import type { ResourceCache } from './sync/resource-cache.ts';

export interface WorkerHealth {
  status: 'ok' | 'degraded';
  [k: string]: unknown;
}

export type WorkerReadiness = { ready: true } | { ready: false; reason: string };

export interface WorkerDeps {
  keys: KeyCache;
  hashKey: KeyHasher;
  upstream: UpstreamFetch;
  usage: { push(record: UsageRecord): void };
  trustedHosts: TrustedHosts;
  logger: Logger;
  health(): WorkerHealth;
  /** Readiness (`GET /ready`); without it the worker is always ready. */
  ready?(): WorkerReadiness;
  /** Managed providers (`@slug`, virtual keys); the lead wires it to gRPC Resolve. */
  providers?: ProviderDirectory;
  /** The integrated model catalogue for GET /v1/models. */
  models?: ModelCatalogue;
  /** Configs, guardrails, policies (and providers) resolved from the control plane, kept fresh by Watch. */
  resources?: ResourceCache;
  /** Rate limits, budgets and cost (issue 8); without it nothing is limited (cost is still priced). */
  limits?: LimitDeps;
  /** Per-request metrics (Prometheus in the runtime): counts rate-limit refusals by code, among others. */
  metrics?: RequestMetrics;
  /** OpenTelemetry spans per request (issue 9 item 5); default: the no-op tracer. */
  tracer?: Tracer;
  /** What workers share (response cache, circuit breakers, sticky loadbalance); in-process when absent. */
  store?: SharedStore;
  /** The circuit breaker shared by this worker's requests (null: none); one on `store` when absent. */
  breaker?: CircuitBreaker | null;
  /** Routing knobs (backoff, Retry-After cap); tests may shorten the sleeps. */
  routing?: Partial<RoutingDeps>;
  /** Longest gap between stream chunks before the stream is ended (0: only x-gateway-stream-idle-timeout). */
  streamIdleTimeoutMs?: number;
  /** Erroring guardrail checks pass instead of failing the hook (default: fail closed). */
  guardrailsFailOpen?: boolean;
}

/** FNV-1a, 52 bits: names a credential in circuit-breaker ids without carrying it. */
function fingerprint(s: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 16777619) >>> 0;
    h2 = Math.imul(h2 ^ c, 2246822519) >>> 0;
  }
  return h1.toString(16) + (h2 & 0xfffff).toString(16);
}

/** A target's circuit-breaker id (issue 7 item 7): provider, host and a hash of the credential. */
function targetIdOf(leaf: Leaf, h: GatewayHeaders, key: ResolvedKey): string {
  const n = leaf.node;
  const managed = n.provider?.startsWith('@') ? n.provider.slice(1) : n.virtual_key;
  if (managed) return `${key.workspaceId ?? key.organisationId}/@${managed}`;
  const provider = n.provider ?? h.provider ?? '';
  const host = leaf.settings.custom_host ?? h.customHost ?? '';
  const credential = typeof n.api_key === 'string' && n.api_key ? n.api_key : (h.providerKey ?? '');
  return `${provider}|${host}|${fingerprint(credential)}`;
}

const NO_DEFAULTS: OrgDefaults = { input: [], output: [] };
const PLAIN_HEADERS = { 'x-gateway-cache-status': 'DISABLED' };

export type FetchHandler = (request: Request) => Promise<Response>;

/** The fetch handler, plus the WebSocket upgrade of /v1/realtime for runtimes that can tunnel it. */
export interface GatewayHandler extends FetchHandler {
  /** Authenticates and routes an upgrade: where to open the provider's socket, or the refusal to send. */
  realtime(request: Request): Promise<RealtimeUpstream | Response>;
  /** Accounts a finished realtime session. */
  finish(state: RequestState): void;
}

const PROXY_PREFIX = 'proxy/';

/** The data plane as one web-standard fetch handler (ARCHITECTURE.md: Data plane request flow). */
export function createGatewayHandler(deps: WorkerDeps): GatewayHandler {
  const tracer = deps.tracer ?? NO_TRACER;
  const finish = (state: RequestState) => {
    accountRequest(deps.limits, state);
    endRequestSpan(state);
    const record = state.toRecord();
    if (record) deps.usage.push(record);
    deps.metrics?.observe({ endpoint: state.endpoint, provider: state.provider, status: state.status, latencyMs: state.elapsedMs(), upstreamLatencyMs: state.upstreamLatencyMs, cacheStatus: '', errorCode: state.errorCode });
  };
  const callDeps = { upstream: deps.upstream, finish, tracer };
  const targetDeps = { trustedHosts: deps.trustedHosts, providers: deps.providers };
  const store = deps.store ?? new MemoryStore();
  const breaker = deps.breaker === undefined ? new CircuitBreaker(DEFAULT_BREAKER, store) : deps.breaker;
  const routingBase: RoutingDeps = {
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    random: Math.random,
    breaker,
    sticky: store,
    ...deps.routing,
  };
  const routedDeps: Omit<RoutedDeps, 'routing'> = {
    upstream: deps.upstream,
    finish,
    targets: targetDeps,
    cache: new ResponseCache(store),
    guardrailsFailOpen: deps.guardrailsFailOpen ?? false,
    logger: deps.logger,
  };

  async function planFor(choice: ConfigChoice | null, org: OrgDefaults, key: ResolvedKey): Promise<RoutePlan> {
    const lookup = guardrailLookup(key, deps.resources);
    const defaults = async (ids: string[]): Promise<Hook[]> => {
      const out: Hook[] = [];
      // An organisation default deleted since the policy was read is skipped, not the caller's fault.
      for (const id of ids) {
        const hook = await lookup(id);
        if (hook) out.push(hook);
      }
      return out;
    };
    const config = choice?.config ?? null;
    const orgOutput = await defaults(org.output);
    return {
      config,
      configIdentity: choice?.identity ?? '',
      input: [...(await defaults(org.input)), ...(await hooksFor(config?.input_guardrails, 'input_guardrails', lookup))],
      output: [...orgOutput, ...(await hooksFor(config?.output_guardrails, 'output_guardrails', lookup))],
      orgOutput,
      hooks: (entries, prefix) => hooksFor(entries, prefix, lookup),
      bufferBody: config !== null && mayRetry(config),
    };
  }

  /** One generic path for every data-plane request: built-in route (route) or pass-through (null). */
  async function serve(request: Request, route: EndpointRoute | null, path: string): Promise<Response> {
    let headers: GatewayHeaders;
    try {
      headers = readGatewayHeaders(request.headers);
    } catch (err) {
      return errorResponse(toAppError(err));
    }
    const state = new RequestState(headers.traceId, route?.endpoint ?? 'proxy', request.method);
    startRequestSpan(tracer, request, state);
    state.setMetadata(headers.metadata);
    const traceHeader = { 'x-gateway-trace-id': state.traceId };
    try {
      state.key = await traced(stepSpan(tracer, state, 'authenticate'), authenticate(headers.apiKey, deps.keys, deps.hashKey, DATA_PLANE_SCOPE, Date.now()));
      if (state.key.defaults.metadata) state.setMetadata({ ...state.key.defaults.metadata, ...state.metadata });
      if (route?.endpoint === 'models.list' && wantsCatalogue(headers)) {
        const response = await catalogueResponse(deps.models, state.key.workspaceId, state.traceId);
        state.status = 200;
        finish(state);
        return response;
      }
      const json = route?.body === 'json' ? parseJsonBody(await request.text(), route.endpoint) : null;
      const limitHeaders = await admitRequest(deps.limits, state, json?.body ?? null, headers.provider);
      const key = state.key;
      const wsPending = workspaceSettings(key, deps.resources);
      const ws = wsPending instanceof Promise ? await wsPending : wsPending;
      if (ws.blockInlineConfig) assertSavedOnly(headers);
      // A workspace default config applies when neither the request nor the key names one.
      const choice =
        headers.config || key.defaults.config_id
          ? await resolveConfig(headers.config, key, deps.resources)
          : ws.defaultConfigId
            ? await resolveConfig(null, { ...key, defaults: { ...key.defaults, config_id: ws.defaultConfigId } }, deps.resources)
            : null;
      const pending = deps.resources ? orgDefaults(key, deps.resources) : NO_DEFAULTS;
      const org = pending instanceof Promise ? await pending : pending;
      // Issue 7: a config (header, saved, key or workspace default) or organisation guardrails take
      // the routed path; a plain request goes straight to its one target (no parse, no store).
      let response: Response;
      if (!choice && !org.input.length && !org.output.length) {
        const { targets } = await traced(stepSpan(tracer, state, 'resolve_target'), resolveTargets(headers, key, targetDeps));
        const target = targets[0]!;
        state.provider = target.provider.name;
        const call: GatewayCall = { request, path, route, json, state, responseHeaders: PLAIN_HEADERS };
        response = (await callTarget(target, call, callDeps)).response;
      } else {
        const plan = await planFor(choice, org, key);
        const routing = breaker ? { ...routingBase, targetId: (leaf: Leaf) => targetIdOf(leaf, headers, key) } : routingBase;
        response = await serveRouted({ request, path, route, json, state }, headers, key, plan, { ...routedDeps, routing });
      }
      const idleMs = headers.streamIdleTimeoutMs ?? deps.streamIdleTimeoutMs;
      if (idleMs && isEventStream(response)) {
        response = withIdleTimeout(response, idleMs, () => {
          state.errorCode = 'stream_idle_timeout';
        });
      }
      return withLimitHeaders(response, limitHeaders);
    } catch (err) {
      const e = toAppError(err);
      if (!(err instanceof AppError) || e.status >= 500) {
        const forwarded = headers.forwardHeaders.length ? await headersForLog(request.headers, headers.forwardHeaders, headers.sensitiveHeaders, deps.hashKey) : undefined;
        deps.logger.error('request failed', { trace_id: state.traceId, endpoint: state.endpoint, provider: state.provider, err: err instanceof AppError ? e.message : String(err), ...(forwarded ? { forwarded_headers: forwarded } : {}) });
      }
      state.status = e.status;
      state.errorCode = e.code;
      finish(state);
      // x-gateway-cache-status on every answer: the routed path names its own, else no cache was consulted.
      return errorResponse(e, e.headers?.['x-gateway-cache-status'] ? traceHeader : { ...traceHeader, 'x-gateway-cache-status': 'DISABLED' });
    }
  }

  /** GET /v1/realtime: the same authentication and routing as every request, then a tunnel. */
  async function realtime(request: Request): Promise<RealtimeUpstream | Response> {
    let headers: GatewayHeaders;
    try {
      headers = readGatewayHeaders(request.headers);
    } catch (err) {
      return errorResponse(toAppError(err));
    }
    const state = new RequestState(headers.traceId, 'realtime', request.method);
    startRequestSpan(tracer, request, state);
    state.setMetadata(headers.metadata);
    try {
      state.key = await traced(stepSpan(tracer, state, 'authenticate'), authenticate(headers.apiKey, deps.keys, deps.hashKey, DATA_PLANE_SCOPE, Date.now()));
      if (state.key.defaults.metadata) state.setMetadata({ ...state.key.defaults.metadata, ...state.metadata });
      await admitRequest(deps.limits, state, null, headers.provider);
      const wsPending = workspaceSettings(state.key, deps.resources);
      if ((wsPending instanceof Promise ? await wsPending : wsPending).blockInlineConfig) assertSavedOnly(headers);
      const choice = headers.config || state.key.defaults.config_id ? await resolveConfig(headers.config, state.key, deps.resources) : null;
      // A socket has no retries or fallback: the config's first target carries the session.
      const { targets } = await traced(stepSpan(tracer, state, 'resolve_target'), resolveTargets(headers, state.key, targetDeps, choice?.config ?? null));
      const target = targets[0]!;
      state.provider = target.provider.name;
      const q = request.url.indexOf('?');
      const up = await realtimeUpstream(target, request, q < 0 ? '' : request.url.slice(q), state, deps.upstream);
      if (state.span.recording) up.headers.traceparent = state.span.traceparent();
      return up;
    } catch (err) {
      const e = toAppError(err);
      state.status = e.status;
      state.errorCode = e.code;
      finish(state);
      return errorResponse(e, { 'x-gateway-trace-id': state.traceId });
    }
  }

  const handle = async function handle(request: Request): Promise<Response> {
    const url = request.url;
    // Path and query without a URL object per request (the hot path).
    const start = url.indexOf('/', url.indexOf('//') + 2);
    const q = url.indexOf('?', start);
    const pathname = start < 0 ? '/' : q < 0 ? url.slice(start) : url.slice(start, q);
    const search = q < 0 ? '' : url.slice(q);
    if (pathname.startsWith('/v1/')) {
      let rest = pathname.slice(4);
      // /v1/proxy/{path} forces raw pass-through even for built-in routes (spec: Data-plane endpoints).
      if (rest.startsWith(PROXY_PREFIX)) return serve(request, null, rest.slice(PROXY_PREFIX.length) + search);
      const route = matchEndpoint(request.method, rest);
      return serve(request, route, rest + search);
    }
    if (pathname === '/health' && request.method === 'GET') {
      const h = deps.health();
      return new Response(JSON.stringify(h), { status: 200, headers: { 'content-type': 'application/json' } });
    }
    if (pathname === '/ready' && request.method === 'GET') {
      const r = deps.ready?.() ?? { ready: true };
      return new Response(JSON.stringify(r), { status: r.ready ? 200 : 503, headers: { 'content-type': 'application/json' } });
    }
    return errorResponse(new AppError(404, 'not_found_error', 'unknown_route', `No route for ${request.method} ${pathname}`));
  };
  return Object.assign(handle, { realtime, finish });
}
