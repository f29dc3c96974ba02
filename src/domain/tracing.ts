// Request tracing as the data plane sees it (issue 9 item 5). The pipeline only knows this
// interface; the runtime backs it with OpenTelemetry (src/platform/tracing/otel-tracer.ts) when an
// OTLP endpoint is configured, and with the no-op below otherwise, so an untraced request
// allocates nothing for tracing.

export type SpanAttribute = string | number | boolean;
export type SpanAttributes = Record<string, SpanAttribute>;

export interface Span {
  /** False for the no-op span: callers can skip work whose only purpose is the trace. */
  readonly recording: boolean;
  setAttribute(name: string, value: SpanAttribute): void;
  /** Renames the span once what it did is known (a GraphQL operation, a route). */
  updateName(name: string): void;
  /** 'error' marks the span failed (the message says why; never a secret). */
  setStatus(status: 'ok' | 'error', message?: string): void;
  /** Ends the span; later calls are ignored. */
  end(): void;
  /** The W3C `traceparent` naming this span, sent upstream so the provider's spans join the trace ('' when not recording). */
  traceparent(): string;
}

export interface Tracer {
  /** False for the no-op tracer. */
  readonly enabled: boolean;
  /**
   * Starts a span. `parent` is a span of this process, or a W3C `traceparent` header value from
   * the caller (ignored when malformed); without one the span starts a new trace.
   */
  startSpan(name: string, attributes?: SpanAttributes | null, parent?: Span | string | null): Span;
}

export const NO_SPAN: Span = {
  recording: false,
  setAttribute: () => {},
  updateName: () => {},
  setStatus: () => {},
  end: () => {},
  traceparent: () => '',
};

export const NO_TRACER: Tracer = { enabled: false, startSpan: () => NO_SPAN };

/**
 * Ends `span` when `work` settles (failed when it rejects) and hands `work` back: a pipeline step
 * traced in one line. With the no-op span `work` itself is returned (nothing allocated).
 */
export function traced<T>(span: Span, work: Promise<T>): Promise<T> {
  if (!span.recording) return work;
  return work.then(
    (value) => {
      span.end();
      return value;
    },
    (err: unknown) => {
      span.setStatus('error', errorMessage(err));
      span.end();
      throw err;
    },
  );
}

function errorMessage(err: unknown): string {
  if (err && typeof err === 'object' && 'code' in err && typeof err.code === 'string') return err.code;
  return err instanceof Error ? err.message : String(err);
}

// W3C Trace Context (https://www.w3.org/TR/trace-context/#traceparent-header): version 00,
// 32-hex trace id and 16-hex parent id (neither all zeros), 2-hex flags.
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

export interface TraceParent {
  traceId: string;
  spanId: string;
  /** Bit 0: sampled. */
  flags: number;
}

/** Parses a `traceparent` header; null when it is malformed or names the invalid all-zero ids. */
export function parseTraceParent(value: string | null | undefined): TraceParent | null {
  if (!value) return null;
  const m = TRACEPARENT.exec(value.trim().toLowerCase());
  if (!m) return null;
  const [, version, traceId, spanId, flags, rest] = m;
  // Version ff is invalid; version 00 has nothing after the flags.
  if (version === 'ff' || (version === '00' && rest !== undefined)) return null;
  if (/^0+$/.test(traceId!) || /^0+$/.test(spanId!)) return null;
  return { traceId: traceId!, spanId: spanId!, flags: parseInt(flags!, 16) };
}

export function formatTraceParent(traceId: string, spanId: string, flags: number): string {
  return `00-${traceId}-${spanId}-${(flags & 0xff).toString(16).padStart(2, '0')}`;
}
