import { AppError, errorResponse, toAppError } from '../src/domain/errors.ts';
import type { Logger } from '../src/domain/logger.ts';
import type { TrustedHosts } from '../src/domain/net/custom-host.ts';
import { DATA_PLANE_SCOPE } from '../src/domain/scopes.ts';
import type { UsageRecord } from '../src/domain/usage-record.ts';
import type { KeyHasher, UpstreamFetch } from './contracts.ts';
import { chatCompletions } from './endpoints/chat-completions.ts';
import { authenticate } from './pipeline/authenticate.ts';
import { readGatewayHeaders } from './pipeline/gateway-headers.ts';
import { RequestState } from './pipeline/request-state.ts';
import { resolveRoute } from './pipeline/resolve-route.ts';
import type { KeyCache } from './sync/key-cache.ts';

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
}

export type FetchHandler = (request: Request) => Promise<Response>;

/** The data plane as one web-standard fetch handler (ARCHITECTURE.md: Data plane request flow). */
export function createGatewayHandler(deps: WorkerDeps): FetchHandler {
  const finish = (state: RequestState) => {
    const record = state.toRecord();
    if (record) deps.usage.push(record);
  };

  async function chat(request: Request): Promise<Response> {
    const headers = readGatewayHeadersSafe(request);
    if (headers instanceof Response) return headers;
    const state = new RequestState(headers.traceId, 'chat.completions', request.method);
    state.metadata = headers.metadata;
    const traceHeader = { 'x-gateway-trace-id': state.traceId };
    try {
      state.key = await authenticate(headers.apiKey, deps.keys, deps.hashKey, DATA_PLANE_SCOPE, Date.now());
      if (state.key.defaults.metadata) state.metadata = { ...state.key.defaults.metadata, ...state.metadata };
      const route = resolveRoute(headers, deps.trustedHosts);
      state.provider = route.provider.name;
      return await chatCompletions(request, state, route, deps.upstream, finish);
    } catch (err) {
      const e = toAppError(err);
      if (!(err instanceof AppError)) deps.logger.error('request failed', { trace_id: state.traceId, err: String(err) });
      state.status = e.status;
      state.errorCode = e.code;
      finish(state);
      return errorResponse(e, traceHeader);
    }
  }

  return async function handle(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (path === '/v1/chat/completions') {
      if (request.method !== 'POST') return errorResponse(new AppError(405, 'invalid_request_error', 'method_not_allowed', 'Use POST.'));
      return chat(request);
    }
    if (path === '/health' && request.method === 'GET') {
      const h = deps.health();
      return new Response(JSON.stringify(h), { status: 200, headers: { 'content-type': 'application/json' } });
    }
    if (path === '/ready' && request.method === 'GET') {
      const r = deps.ready?.() ?? { ready: true };
      return new Response(JSON.stringify(r), { status: r.ready ? 200 : 503, headers: { 'content-type': 'application/json' } });
    }
    return errorResponse(new AppError(404, 'not_found_error', 'unknown_route', `No route for ${request.method} ${path}`));
  };
}

function readGatewayHeadersSafe(request: Request) {
  try {
    return readGatewayHeaders(request.headers);
  } catch (err) {
    return errorResponse(toAppError(err));
  }
}
