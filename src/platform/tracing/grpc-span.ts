// Control-plane gRPC spans (issue 9 item 5): one per WorkerSync call (ResolveKey, Resolve) and per
// usage batch of a Report stream; a `traceparent` in the call's metadata becomes the parent.
import type { Metadata } from '@grpc/grpc-js';
import { NO_SPAN, type Span, type SpanAttributes, type Tracer } from '../../domain/tracing.ts';

export function startGrpcSpan(tracer: Tracer | undefined, method: string, metadata: Metadata, attributes: SpanAttributes): Span {
  if (!tracer?.enabled) return NO_SPAN;
  const parent = metadata.get('traceparent')[0];
  return tracer.startSpan(`gateway.sync.v1.WorkerSync/${method}`, { 'rpc.system': 'grpc', 'rpc.service': 'gateway.sync.v1.WorkerSync', 'rpc.method': method, ...attributes }, typeof parent === 'string' ? parent : null);
}

/** Ends a call's span: gRPC status 0 (OK) or the failure. */
export function endGrpcSpan(span: Span, code: number, attributes?: SpanAttributes): void {
  if (!span.recording) return;
  span.setAttribute('rpc.grpc.status_code', code);
  if (attributes) for (const k in attributes) span.setAttribute(k, attributes[k]!);
  if (code !== 0) span.setStatus('error', String(code));
  span.end();
}
