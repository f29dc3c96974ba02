// The domain Tracer backed by OpenTelemetry (issue 9 item 5): spans batched and exported over
// OTLP/HTTP (JSON) to `${OTEL_EXPORTER_OTLP_ENDPOINT}/v1/traces`. No global registration: each
// worker or control plane of a process has its own provider, flushed by its own close().
import { ROOT_CONTEXT, SpanStatusCode, TraceFlags, trace, type Span as OtelSpan, type Tracer as OtelApiTracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { formatTraceParent, NO_TRACER, parseTraceParent, type Span, type SpanAttribute, type SpanAttributes, type Tracer } from '../../domain/tracing.ts';

export interface TracingSettings {
  /** OTEL_EXPORTER_OTLP_ENDPOINT; unset: tracing off (the no-op tracer). */
  endpoint?: string | null | undefined;
  /** OTEL_SERVICE_NAME: the `service.name` resource attribute. */
  serviceName: string;
  /** Delay between batch exports; default OTEL_BSP_SCHEDULE_DELAY, else 5 s (tests shorten it). */
  scheduledDelayMs?: number | undefined;
}

export interface Tracing {
  tracer: Tracer;
  /** Exports the spans ended so far. */
  flush(): Promise<void>;
  /** Flushes and stops; spans ended later are dropped. */
  shutdown(): Promise<void>;
}

const NO_TRACING: Tracing = { tracer: NO_TRACER, flush: async () => {}, shutdown: async () => {} };

/** The OTLP traces URL of an endpoint: the standard `/v1/traces` under it. */
export function tracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}

/**
 * Tracing for one process part. Without an endpoint (and without `exporter`, which tests use to
 * read spans in memory) the no-op tracer: nothing is recorded or sent.
 */
export function createTracing(settings: TracingSettings, exporter?: SpanExporter): Tracing {
  if (!settings.endpoint && !exporter) return NO_TRACING;
  const spanExporter = exporter ?? new OTLPTraceExporter({ url: tracesUrl(settings.endpoint!) });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.serviceName }),
    spanProcessors: [new BatchSpanProcessor(spanExporter, settings.scheduledDelayMs !== undefined ? { scheduledDelayMillis: settings.scheduledDelayMs } : {})],
  });
  const tracer = new OtelTracer(provider.getTracer('ai-gateway'));
  let stopped: Promise<void> | null = null;
  return {
    tracer,
    flush: () => provider.forceFlush(),
    shutdown: () => (stopped ??= provider.shutdown()),
  };
}

class OtelTracer implements Tracer {
  readonly enabled = true;
  constructor(private readonly tracer: OtelApiTracer) {}

  startSpan(name: string, attributes?: SpanAttributes | null, parent?: Span | string | null): Span {
    let ctx = ROOT_CONTEXT;
    if (parent instanceof TracedSpan) ctx = trace.setSpan(ROOT_CONTEXT, parent.span);
    else if (typeof parent === 'string') {
      const p = parseTraceParent(parent);
      if (p) ctx = trace.setSpanContext(ROOT_CONTEXT, { traceId: p.traceId, spanId: p.spanId, traceFlags: p.flags & TraceFlags.SAMPLED, isRemote: true });
    }
    return new TracedSpan(this.tracer.startSpan(name, attributes ? { attributes } : {}, ctx));
  }
}

class TracedSpan implements Span {
  readonly recording = true;
  private ended = false;
  constructor(readonly span: OtelSpan) {}

  setAttribute(name: string, value: SpanAttribute): void {
    if (!this.ended) this.span.setAttribute(name, value);
  }

  updateName(name: string): void {
    if (!this.ended) this.span.updateName(name);
  }

  setStatus(status: 'ok' | 'error', message?: string): void {
    if (this.ended) return;
    this.span.setStatus(status === 'ok' ? { code: SpanStatusCode.OK } : { code: SpanStatusCode.ERROR, ...(message ? { message } : {}) });
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.span.end();
  }

  traceparent(): string {
    const c = this.span.spanContext();
    return formatTraceParent(c.traceId, c.spanId, c.traceFlags);
  }
}
