// The OpenTelemetry tracer behind the domain interface (issue 9 item 5): parents, W3C
// traceparent in and out, the no-op when no endpoint is set, and a real OTLP/HTTP export.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it, expect, afterAll, beforeAll } from 'vitest';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { NO_SPAN, NO_TRACER, parseTraceParent, traced } from '../../../src/domain/tracing.ts';
import { createTracing, tracesUrl } from '../../../src/platform/tracing/otel-tracer.ts';
import { startCollector, type Collector } from './otlp-collector.ts';

const INCOMING = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

function memory() {
  const exporter = new InMemorySpanExporter();
  const tracing = createTracing({ serviceName: 'unit' }, { exporter });
  return { exporter, tracing, spans: async () => (await tracing.flush(), exporter.getFinishedSpans()) };
}

describe('createTracing', () => {
  it('without an endpoint is the shared no-op: nothing recorded, no traceparent, traced() hands the work back', async () => {
    const tracing = createTracing({ endpoint: undefined, serviceName: 'x' });
    expect(tracing.tracer).toBe(NO_TRACER);
    const span = tracing.tracer.startSpan('gateway.request', { a: 1 }, INCOMING);
    expect(span).toBe(NO_SPAN);
    expect(span.traceparent()).toBe('');
    const work = Promise.resolve(3);
    expect(traced(span, work)).toBe(work);
    await tracing.shutdown();
  });

  it('children share the trace and name their parent; traceparent names the span itself', async () => {
    const m = memory();
    const root = m.tracing.tracer.startSpan('root', { 'gateway.trace_id': 'abc' });
    const child = m.tracing.tracer.startSpan('child', null, root);
    const tp = parseTraceParent(child.traceparent())!;
    child.end();
    root.end();
    const [c, r] = await m.spans();
    expect(r!.name).toBe('root');
    expect(r!.attributes['gateway.trace_id']).toBe('abc');
    expect(r!.parentSpanContext).toBeUndefined();
    expect(c!.spanContext().traceId).toBe(r!.spanContext().traceId);
    expect(c!.parentSpanContext?.spanId).toBe(r!.spanContext().spanId);
    expect(tp).toEqual({ traceId: c!.spanContext().traceId, spanId: c!.spanContext().spanId, flags: 1 });
    expect(c!.resource.attributes['service.name']).toBe('unit');
  });

  it("a caller's traceparent becomes the parent; a malformed one starts a new trace", async () => {
    const m = memory();
    m.tracing.tracer.startSpan('joined', null, INCOMING).end();
    m.tracing.tracer.startSpan('fresh', null, '00-zz-bad').end();
    m.tracing.tracer.startSpan('zeros', null, '00-00000000000000000000000000000000-b7ad6b7169203331-01').end();
    const [joined, fresh, zeros] = await m.spans();
    expect(joined!.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(joined!.parentSpanContext).toMatchObject({ spanId: 'b7ad6b7169203331', isRemote: true });
    expect(fresh!.parentSpanContext).toBeUndefined();
    expect(fresh!.spanContext().traceId).not.toBe('0af7651916cd43dd8448eb211c80319c');
    expect(zeros!.parentSpanContext).toBeUndefined();
  });

  it('an unsampled caller trace is not recorded here, but its trace id still propagates unsampled', async () => {
    const m = memory();
    const span = m.tracing.tracer.startSpan('unsampled', null, '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00');
    expect(parseTraceParent(span.traceparent())).toMatchObject({ traceId: '0af7651916cd43dd8448eb211c80319c', flags: 0 });
    span.end();
    expect(await m.spans()).toEqual([]);
  });

  it('traced() ends the span, marking a failure with its code', async () => {
    const m = memory();
    await traced(m.tracing.tracer.startSpan('ok'), Promise.resolve(1));
    await expect(traced(m.tracing.tracer.startSpan('bad'), Promise.reject(Object.assign(new Error('nope'), { code: 'invalid_api_key' })))).rejects.toThrow('nope');
    const [ok, bad] = await m.spans();
    expect(ok!.status.code).toBe(0);
    expect(bad!.status).toEqual({ code: 2, message: 'invalid_api_key' });
  });

  it('parseTraceParent follows W3C Trace Context', () => {
    expect(parseTraceParent(INCOMING)).toEqual({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', flags: 1 });
    expect(parseTraceParent('ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01')).toBeNull();
    expect(parseTraceParent(`${INCOMING}-extra`)).toBeNull();
    expect(parseTraceParent('01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra')).not.toBeNull();
    expect(parseTraceParent('00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01')).toBeNull();
    expect(parseTraceParent(null)).toBeNull();
    expect(tracesUrl('http://collector:4318/')).toBe('http://collector:4318/v1/traces');
  });
});

describe('OTLP/HTTP export', () => {
  let collector: Collector;
  beforeAll(async () => {
    collector = await startCollector();
  });
  afterAll(async () => collector?.close());

  it('POSTs JSON spans to {endpoint}/v1/traces with the service name, flushed on shutdown', async () => {
    const tracing = createTracing({ endpoint: collector.url, serviceName: 'otlp-test-service' });
    const root = tracing.tracer.startSpan('gateway.request', { 'gateway.trace_id': 'corr-1' });
    tracing.tracer.startSpan('upstream', null, root).end();
    root.end();
    await tracing.shutdown();
    const spans = await collector.waitFor((s) => s.length >= 2);
    expect(collector.posts[0]).toMatchObject({ path: '/v1/traces', contentType: expect.stringContaining('application/json') });
    const r = spans.find((s) => s.name === 'gateway.request')!;
    const u = spans.find((s) => s.name === 'upstream')!;
    expect(r).toMatchObject({ serviceName: 'otlp-test-service', parentSpanId: '', attributes: { 'gateway.trace_id': 'corr-1' } });
    expect(u).toMatchObject({ traceId: r.traceId, parentSpanId: r.spanId });
  });

  it('a refused export is logged as a warning naming the endpoint, and the spans are dropped', async () => {
    const refusing = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(400, { 'content-type': 'application/json' }).end('{}'));
    });
    await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', r));
    const endpoint = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
    const warnings: { msg: string; fields?: Record<string, unknown> }[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (msg: string, fields?: Record<string, unknown>) => void warnings.push({ msg, fields }) };
    try {
      const tracing = createTracing({ endpoint, serviceName: 'refused' }, { logger });
      tracing.tracer.startSpan('lost').end();
      await tracing.shutdown();
      expect(warnings).toEqual([{ msg: 'trace export failed; spans dropped', fields: expect.objectContaining({ endpoint, dropped_spans: 1 }) }]);
    } finally {
      refusing.closeAllConnections();
      await new Promise<void>((r) => refusing.close(() => r()));
    }
  });
});
