// Control-plane HTTP spans (issue 9 item 5): one per request, named by what it ran — the GraphQL
// operation (`graphql CreateConfig`) or the REST route template (`POST /v2/configs/:id`) — never by
// raw paths, which carry ids. Untraced (no OTLP endpoint), nothing is read or allocated.
import { NO_SPAN, type Span, type Tracer } from '../../domain/tracing.ts';

export interface HttpSpan {
  span: Span;
  /** The GraphQL operation name, read from a copy of the request (null for other paths). */
  operation: Promise<string | null> | null;
}

const UNTRACED: HttpSpan = { span: NO_SPAN, operation: null };

/** Opens the request's span; a caller's `traceparent` becomes its parent. */
export function startHttpSpan(tracer: Tracer, request: Request): HttpSpan {
  if (!tracer.enabled) return UNTRACED;
  const path = new URL(request.url).pathname;
  const span = tracer.startSpan(request.method, { 'http.request.method': request.method }, request.headers.get('traceparent'));
  return { span, operation: path === '/graphql' ? graphqlOperationName(request) : null };
}

/** Names and closes the span once the answer is known; `route` is the REST route template that answered. */
export async function endHttpSpan(h: HttpSpan, request: Request, api: string, status: number, route: string | null): Promise<void> {
  const { span } = h;
  if (!span.recording) return;
  span.setAttribute('gateway.api', api);
  span.setAttribute('http.response.status_code', status);
  if (api === 'graphql') {
    const name = await h.operation?.catch(() => null);
    span.updateName(name ? `graphql ${name}` : 'graphql');
    if (name) span.setAttribute('graphql.operation.name', name);
  } else if (route) {
    span.updateName(`${request.method} ${route}`);
    span.setAttribute('http.route', route);
  } else if (api === 'health' || api === 'metrics') {
    span.updateName(`${request.method} /${api}`);
  }
  if (status >= 500) span.setStatus('error', String(status));
  span.end();
}

// `query Name`, `mutation Name(...)`, `subscription Name`: the first named operation of a document.
const NAMED_OPERATION = /\b(query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)/;

/** The operation a GraphQL request runs: `operationName`, else the document's first named operation. */
export async function graphqlOperationName(request: Request): Promise<string | null> {
  if (request.method === 'GET') {
    const params = new URL(request.url).searchParams;
    return params.get('operationName') || nameIn(params.get('query'));
  }
  if (!(request.headers.get('content-type') ?? '').includes('json')) return null;
  let body: unknown;
  try {
    body = await request.clone().json();
  } catch {
    return null;
  }
  const ops = Array.isArray(body) ? body : [body];
  const names = ops.map((op: unknown) => {
    if (!op || typeof op !== 'object') return null;
    const o = op as { operationName?: unknown; query?: unknown };
    return typeof o.operationName === 'string' && o.operationName ? o.operationName : nameIn(typeof o.query === 'string' ? o.query : null);
  }).filter((n): n is string => !!n);
  return names.length ? names.join(',') : null;
}

function nameIn(query: string | null): string | null {
  return query ? (NAMED_OPERATION.exec(query)?.[2] ?? null) : null;
}
