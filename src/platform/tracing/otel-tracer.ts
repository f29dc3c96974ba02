// The domain Tracer backed by OpenTelemetry (issue 9 item 5): spans batched and exported over
// OTLP/HTTP (JSON) to `${OTEL_EXPORTER_OTLP_ENDPOINT}/v1/traces`. No global registration: each
// worker or control plane of a process has its own provider, flushed by its own close().
import { ROOT_CONTEXT, SpanStatusCode, TraceFlags, trace, type Span as OtelSpan, type Tracer as OtelApiTracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Logger } from '../../domain/logger.ts';
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
  /** Exports the spans ended so far (never rejects: failures go to the logger). */
  flush(): Promise<void>;
  /** Flushes and stops; spans ended later are dropped. */
  shutdown(): Promise<void>;
}

const SHUTDOWN_BOUND_MS = 3_000;
/** `work`, or nothing once `ms` passed (the timer is cleared when `work` settles first). */
function bounded(work: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return Promise.race([work.finally(() => clearTimeout(timer)), late]);
}

const NO_TRACING: Tracing = { tracer: NO_TRACER, flush: async () => {}, shutdown: async () => {} };

/** The OTLP traces URL of an endpoint: the standard `/v1/traces` under it. */
export function tracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}

export interface TracingOptions {
  /** Replaces the OTLP exporter (tests read spans in memory with it). */
  exporter?: SpanExporter;
  /** Told when an export fails (at most once a minute): spans are dropped, requests are not. */
  logger?: Logger;
}

/**
 * Tracing for one process part. Without an endpoint (and without `exporter`) the no-op tracer:
 * nothing is recorded or sent.
 */
export function createTracing(settings: TracingSettings, opts: TracingOptions = {}): Tracing {
  if (!settings.endpoint && !opts.exporter) return NO_TRACING;
  const inner = opts.exporter ?? new OTLPTraceExporter({ url: tracesUrl(settings.endpoint!) });
  const spanExporter = opts.logger ? new ReportingExporter(inner, opts.logger, settings.endpoint ?? '') : inner;
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.serviceName }),
    spanProcessors: [new BatchSpanProcessor(spanExporter, settings.scheduledDelayMs !== undefined ? { scheduledDelayMillis: settings.scheduledDelayMs } : {})],
  });
  const tracer = new OtelTracer(provider.getTracer('ai-gateway'));
  let stopped: Promise<void> | null = null;
  return {
    tracer,
    // A failed export is reported by the exporter (logger); closing a worker never fails for it.
    flush: () => provider.forceFlush().catch(() => {}),
    // Bounded: an unreachable collector must not hold a shutdown past the entry's 10 s limit.
    shutdown: () => (stopped ??= bounded(provider.shutdown().catch(() => {}), SHUTDOWN_BOUND_MS)),
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

const EXPORT_WARNING_INTERVAL_MS = 60_000;

/** Passes spans on; a failed export (collector down, refused) is logged, rate-limited. */
class ReportingExporter implements SpanExporter {
  private lastWarning = 0;
  private failed = 0;
  constructor(private readonly inner: SpanExporter, private readonly logger: Logger, private readonly endpoint: string) {}

  export(spans: ReadableSpan[], done: Parameters<SpanExporter['export']>[1]): void {
    this.inner.export(spans, (result) => {
      // ExportResultCode.SUCCESS is 0.
      if (result.code !== 0) {
        this.failed += spans.length;
        const now = Date.now();
        if (now - this.lastWarning >= EXPORT_WARNING_INTERVAL_MS) {
          this.lastWarning = now;
          this.logger.warn('trace export failed; spans dropped', { endpoint: this.endpoint, dropped_spans: this.failed, err: String(result.error ?? 'unknown') });
          this.failed = 0;
        }
      }
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
