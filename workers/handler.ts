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
import { resolveTargets } from './pipeline/resolve-target.ts';
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
}

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
      const { targets } = await traced(stepSpan(tracer, state, 'resolve_target'), resolveTargets(headers, state.key, targetDeps));
      // The routing engine (fallback, loadbalance, conditional, retries) walks the targets; until
      // then the first one answers.
      const target = targets[0]!;
      state.provider = target.provider.name;
      const call: GatewayCall = { request, path, route, json, state };
      return withLimitHeaders((await callTarget(target, call, callDeps)).response, limitHeaders);
    } catch (err) {
      const e = toAppError(err);
      if (!(err instanceof AppError) || e.status >= 500) {
        const forwarded = headers.forwardHeaders.length ? await headersForLog(request.headers, headers.forwardHeaders, headers.sensitiveHeaders, deps.hashKey) : undefined;
        deps.logger.error('request failed', { trace_id: state.traceId, endpoint: state.endpoint, provider: state.provider, err: err instanceof AppError ? e.message : String(err), ...(forwarded ? { forwarded_headers: forwarded } : {}) });
      }
      state.status = e.status;
      state.errorCode = e.code;
      finish(state);
      return errorResponse(e, traceHeader);
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
      const { targets } = await traced(stepSpan(tracer, state, 'resolve_target'), resolveTargets(headers, state.key, targetDeps));
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
