// The spans of one data-plane request (issue 9 item 5): `gateway.request` from arrival until the
// request is accounted, with children for its steps and one `upstream` span per provider attempt,
// whose W3C `traceparent` goes to the provider. Untraced (no OTLP endpoint), every function here
// returns at its first line and the state keeps the shared no-op span.
import { NO_SPAN, traced, type Span, type Tracer } from '../../src/domain/tracing.ts';
import type { UpstreamResponse } from '../contracts.ts';
import type { RequestState } from './request-state.ts';

/** Opens the request's root span; a caller's `traceparent` becomes its parent. */
export function startRequestSpan(tracer: Tracer, request: Request, state: RequestState): void {
  if (!tracer.enabled) return;
  state.span = tracer.startSpan(
    'gateway.request',
    // gateway.trace_id is the caller's x-gateway-trace-id: the usage record's and logs' join key.
    { 'gateway.trace_id': state.traceId, 'gateway.endpoint': state.endpoint, 'http.request.method': state.method, 'gateway.request_id': state.requestId },
    request.headers.get('traceparent'),
  );
}

/** A child span of the request for one step (`authenticate`, `resolve_target`); end it with {@link traced}. */
export function stepSpan(tracer: Tracer, state: RequestState, name: string): Span {
  return state.span.recording ? tracer.startSpan(name, null, state.span) : NO_SPAN;
}

export { traced };

/** Closes the root span with what the request became: never a secret, only ids and outcomes. */
export function endRequestSpan(state: RequestState): void {
  const span = state.span;
  if (!span.recording) return;
  if (state.provider) span.setAttribute('gateway.provider', state.provider);
  if (state.model) span.setAttribute('gateway.model', state.model);
  span.setAttribute('http.response.status_code', state.status);
  if (state.key) {
    span.setAttribute('gateway.organisation_id', state.key.organisationId);
    if (state.key.workspaceId) span.setAttribute('gateway.workspace_id', state.key.workspaceId);
    span.setAttribute('gateway.api_key_id', state.key.id);
  }
  if (state.isStream) span.setAttribute('gateway.stream', true);
  if (state.tokens.total) span.setAttribute('gateway.total_tokens', state.tokens.total);
  if (state.errorCode) span.setAttribute('error.type', state.errorCode);
  if (state.status >= 500 || state.errorCode) span.setStatus('error', state.errorCode || String(state.status));
  span.end();
}

/**
 * Opens the span of one provider attempt and puts its `traceparent` in the upstream headers (the
 * caller's own traceparent, relayed by pass-through, is replaced: the provider's parent is this hop).
 */
export function startUpstreamSpan(tracer: Tracer | undefined, state: RequestState, provider: string, url: string, method: string, headers: Record<string, string>): Span {
  if (!tracer || !state.span.recording) return NO_SPAN;
  const span = tracer.startSpan('upstream', { 'gateway.provider': provider, 'server.address': hostOf(url), 'http.request.method': method, 'gateway.retry_attempt': state.attempt }, state.span);
  headers.traceparent = span.traceparent();
  return span;
}

/** Ends an attempt's span when the provider's headers arrive (or the attempt fails). */
export function tracedUpstream(span: Span, response: Promise<UpstreamResponse>): Promise<UpstreamResponse> {
  if (!span.recording) return response;
  return traced(span, response.then((res) => {
    span.setAttribute('http.response.status_code', res.status);
    if (res.status >= 500) span.setStatus('error', `upstream_${res.status}`);
    return res;
  }));
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}
