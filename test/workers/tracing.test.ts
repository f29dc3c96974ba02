// Request tracing end to end (issue 9 item 5): a worker and a control plane exporting to an
// in-process OTLP/HTTP collector; the mock provider records the traceparent it receives.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocket } from 'undici';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { silentLogger } from '../../src/domain/logger.ts';
import { NO_TRACER, parseTraceParent } from '../../src/domain/tracing.ts';
import { startControlPlane, type RunningControlPlane } from '../../src/entry/control-plane-app.ts';
import { createSecretBox } from '../../src/platform/secret-box.ts';
import { bootstrap } from '../../src/services/bootstrap/bootstrap.ts';
import { startNodeWorker, type NodeWorker } from '../../workers/runtime/node.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { startMockProvider, type MockProvider } from '../support/mock-provider.ts';
import { TEST_SECRET_KEY, TEST_WORKER_TOKEN, workerSettings } from '../support/stack.ts';
import { startCollector, type CollectedSpan, type Collector } from '../platform/tracing/otlp-collector.ts';

let db: TestDatabase;
let cp: RunningControlPlane;
let traced: NodeWorker;
let untraced: NodeWorker;
let mock: MockProvider;
let collector: Collector;
let adminKey: string;
let workspaceId: string;
let appKey: { id: string; key: string };
const PROVIDER_SECRET = 'sk-provider-secret-never-in-spans';

beforeAll(async () => {
  collector = await startCollector();
  mock = await startMockProvider();
  db = await createTestDatabase();
  const boot = await bootstrap(db.orm, {});
  adminKey = boot.adminKey!;
  workspaceId = boot.workspaceId;
  cp = await startControlPlane({
    orm: db.orm, host: '127.0.0.1', httpPort: 0, grpcPort: 0, workerToken: TEST_WORKER_TOKEN, logger: silentLogger,
    secretBox: createSecretBox(TEST_SECRET_KEY), rotationIntervalMs: 0, trustedHosts: ['127.0.0.1'],
    tracing: { endpoint: collector.url, serviceName: 'test-control-plane', scheduledDelayMs: 20 },
  });
  const tracing = { endpoint: collector.url, serviceName: 'test-worker', scheduledDelayMs: 20 };
  traced = await startNodeWorker(workerSettings(cp.grpcPort, { tracing, redisUrl: undefined }), '127.0.0.1', 0);
  untraced = await startNodeWorker(workerSettings(cp.grpcPort, { redisUrl: undefined }), '127.0.0.1', 0);
  const res = await fetch(`${cp.httpUrl}/v2/api-keys/service`, {
    method: 'POST',
    headers: { 'x-gateway-api-key': adminKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'tracing-app', workspace_id: 'ws-default', scopes: ['completions.write'] }),
  });
  appKey = (await res.json()) as { id: string; key: string };
});
afterAll(async () => {
  await traced?.close();
  await untraced?.close();
  await cp?.close();
  await db?.drop();
  await mock?.close();
  await collector?.close();
});

function chat(worker: NodeWorker, headers: Record<string, string> = {}, path = '/v1/chat/completions'): Promise<Response> {
  return fetch(`${worker.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json', 'x-gateway-api-key': appKey.key, 'x-gateway-provider': 'openai',
      'x-gateway-custom-host': mock.baseUrl, authorization: `Bearer ${PROVIDER_SECRET}`, ...headers,
    },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
}

/** The worker's spans of the request whose x-gateway-trace-id is `traceId`, once its root span is exported. */
async function requestSpans(traceId: string, children: number): Promise<{ root: CollectedSpan; spans: CollectedSpan[] }> {
  const isRoot = (s: CollectedSpan) => s.name === 'gateway.request' && s.attributes['gateway.trace_id'] === traceId;
  const all = await collector.waitFor((spans) => {
    const root = spans.find(isRoot);
    return !!root && spans.filter((s) => s.parentSpanId === root.spanId).length >= children;
  });
  const root = all.find(isRoot)!;
  return { root, spans: all.filter((s) => s.traceId === root.traceId) };
}

const childrenOf = (root: CollectedSpan, spans: CollectedSpan[], name: string) => spans.filter((s) => s.parentSpanId === root.spanId && s.name === name);

describe('worker request spans', () => {
  it('a request has a gateway.request root with authenticate, resolve_target and upstream children; the provider gets its traceparent', async () => {
    mock.reset();
    const res = await chat(traced, { 'x-gateway-trace-id': 'corr-basic-1' });
    expect(res.status).toBe(200);
    await res.text();
    const { root, spans } = await requestSpans('corr-basic-1', 3);
    expect(root.serviceName).toBe('test-worker');
    expect(root.parentSpanId).toBe('');
    expect(root.attributes).toMatchObject({
      'gateway.trace_id': 'corr-basic-1', 'gateway.endpoint': 'chat.completions', 'gateway.provider': 'openai', 'gateway.model': 'gpt-4o-mini',
      'http.response.status_code': 200, 'gateway.workspace_id': workspaceId, 'gateway.api_key_id': appKey.id,
    });
    expect(childrenOf(root, spans, 'authenticate')).toHaveLength(1);
    expect(childrenOf(root, spans, 'resolve_target')).toHaveLength(1);
    const [upstream] = childrenOf(root, spans, 'upstream');
    expect(upstream!.attributes).toMatchObject({ 'gateway.provider': 'openai', 'server.address': new URL(mock.url).host, 'http.response.status_code': 200, 'gateway.retry_attempt': 0 });
    // The provider's parent is the attempt's span, in the request's trace.
    const [received] = await mock.waitForRequests(1);
    expect(parseTraceParent(received!.headers.traceparent)).toEqual({ traceId: root.traceId, spanId: upstream!.spanId, flags: 1 });
    // Never a secret in a span.
    const dump = JSON.stringify(spans);
    expect(dump).not.toContain(appKey.key);
    expect(dump).not.toContain(PROVIDER_SECRET);
  });

  it("a caller's traceparent becomes the root's parent, and the provider's traceparent stays in that trace", async () => {
    mock.reset();
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await chat(traced, { 'x-gateway-trace-id': 'corr-parent-1', traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` });
    expect(res.status).toBe(200);
    await res.text();
    const { root } = await requestSpans('corr-parent-1', 3);
    expect(root.traceId).toBe(callerTrace);
    expect(root.parentSpanId).toBe('00f067aa0ba902b7');
    const [received] = await mock.waitForRequests(1);
    const tp = parseTraceParent(received!.headers.traceparent)!;
    expect(tp.traceId).toBe(callerTrace);
    expect(tp.spanId).not.toBe('00f067aa0ba902b7');
  });

  it("pass-through replaces the caller's traceparent with the gateway's hop", async () => {
    mock.reset();
    const callerTrace = '5bf92f3577b34da6a3ce929d0e0e4736';
    const res = await chat(traced, { 'x-gateway-trace-id': 'corr-proxy-1', traceparent: `00-${callerTrace}-10f067aa0ba902b7-01` }, '/v1/proxy/chat/completions');
    expect(res.status).toBe(200);
    await res.text();
    const { root, spans } = await requestSpans('corr-proxy-1', 3);
    expect(root.attributes['gateway.endpoint']).toBe('proxy');
    const [upstream] = childrenOf(root, spans, 'upstream');
    const [received] = await mock.waitForRequests(1);
    expect(received!.headers.traceparent).toBe(`00-${callerTrace}-${upstream!.spanId}-01`);
  });

  it('a refused request ends its root and authenticate spans as errors', async () => {
    const res = await chat(traced, { 'x-gateway-trace-id': 'corr-denied-1', 'x-gateway-api-key': 'gw_not_a_real_key_0123456789abcdef' });
    expect(res.status).toBe(401);
    const { root, spans } = await requestSpans('corr-denied-1', 1);
    expect(root.statusCode).toBe(2);
    expect(root.attributes).toMatchObject({ 'http.response.status_code': 401, 'error.type': 'invalid_api_key' });
    expect(childrenOf(root, spans, 'authenticate')[0]!.statusCode).toBe(2);
    expect(childrenOf(root, spans, 'upstream')).toHaveLength(0);
  });

  it('a provider error is recorded on the upstream span and the root', async () => {
    mock.reset();
    mock.program({ status: 503 });
    const res = await chat(traced, { 'x-gateway-trace-id': 'corr-503-1' });
    expect(res.status).toBe(503);
    await res.text();
    const { root, spans } = await requestSpans('corr-503-1', 3);
    expect(root.statusCode).toBe(2);
    const [upstream] = childrenOf(root, spans, 'upstream');
    expect(upstream).toMatchObject({ statusCode: 2, attributes: { 'http.response.status_code': 503 } });
  });

  it('without OTEL_EXPORTER_OTLP_ENDPOINT the worker uses the no-op tracer and sends no traceparent', async () => {
    expect(untraced.tracing.tracer).toBe(NO_TRACER);
    mock.reset();
    const res = await chat(untraced, { 'x-gateway-trace-id': 'corr-untraced-1' });
    expect(res.status).toBe(200);
    await res.text();
    const [received] = await mock.waitForRequests(1);
    expect(received!.headers.traceparent).toBeUndefined();
    // The traced worker exports continuously: once a later request of it is exported, nothing of this one was.
    const later = await chat(traced, { 'x-gateway-trace-id': 'corr-after-untraced' });
    await later.text();
    await requestSpans('corr-after-untraced', 3);
    expect(collector.spans.some((s) => s.attributes['gateway.trace_id'] === 'corr-untraced-1')).toBe(false);
    expect(new Set(collector.spans.map((s) => s.serviceName))).not.toContain('ai-gateway-worker');
  });
});

describe('realtime', () => {
  it("the provider's WebSocket upgrade carries the request span's traceparent", async () => {
    const seen: IncomingMessage['headers'][] = [];
    const upstream = createServer((_req, res) => res.writeHead(404).end());
    upstream.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
      seen.push(req.headers);
      const accept = createHash('sha1').update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
      socket.write(`HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-accept: ${accept}\r\n\r\n`);
      // The client closes at once: answer its close frame, as a provider does.
      socket.on('data', () => socket.end(Buffer.from([0x88, 0x00])));
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    try {
      const host = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
      const ws = new WebSocket(`${traced.url.replace('http', 'ws')}/v1/realtime?model=gpt-4o-realtime-preview`, {
        headers: { 'x-gateway-api-key': appKey.key, 'x-gateway-provider': 'openai', authorization: 'Bearer sk-rt', 'x-gateway-custom-host': host, 'x-gateway-trace-id': 'corr-rt-1' },
      } as never);
      await new Promise<void>((resolve) => {
        ws.addEventListener('open', () => ws.close());
        ws.addEventListener('close', () => resolve());
        ws.addEventListener('error', () => resolve());
      });
      const { root } = await requestSpans('corr-rt-1', 2);
      expect(root.attributes['gateway.endpoint']).toBe('realtime');
      expect(seen).toHaveLength(1);
      expect(parseTraceParent(seen[0]!.traceparent as string)).toEqual({ traceId: root.traceId, spanId: root.spanId, flags: 1 });
    } finally {
      upstream.closeAllConnections();
      await new Promise<void>((r) => upstream.close(() => r()));
    }
  });
});

describe('control-plane spans', () => {
  it('a GraphQL request is named by its operation, a REST request by its route template', async () => {
    const gql = await fetch(`${cp.httpUrl}/graphql`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': adminKey, 'content-type': 'application/json', traceparent: '00-6bf92f3577b34da6a3ce929d0e0e4736-20f067aa0ba902b7-01' },
      body: JSON.stringify({ query: 'query TracingProbe { __typename }' }),
    });
    expect(gql.status).toBe(200);
    const rest = await fetch(`${cp.httpUrl}/v2/api-keys/${appKey.id}`, { headers: { 'x-gateway-api-key': adminKey } });
    await rest.text();
    const isRest = (x: CollectedSpan) => x.serviceName === 'test-control-plane' && x.name.startsWith('GET /v2/api-keys/');
    const spans = await collector.waitFor((s) => s.some((x) => x.name === 'graphql TracingProbe') && s.some(isRest));
    const g = spans.find((s) => s.name === 'graphql TracingProbe')!;
    expect(g).toMatchObject({ serviceName: 'test-control-plane', traceId: '6bf92f3577b34da6a3ce929d0e0e4736', parentSpanId: '20f067aa0ba902b7', attributes: { 'graphql.operation.name': 'TracingProbe', 'http.response.status_code': 200 } });
    const r = spans.find(isRest)!;
    expect(r.name).toMatch(/^GET \/v2\/api-keys\/:[A-Za-z]+$/);
    expect(r.attributes['http.route']).toBe(r.name.slice(4));
    expect(r.name).not.toContain(appKey.id);
  });

  it('gRPC calls from workers are spans: ResolveKey and each Report batch', async () => {
    const spans = await collector.waitFor((s) =>
      s.some((x) => x.name === 'gateway.sync.v1.WorkerSync/ResolveKey') && s.some((x) => x.name === 'gateway.sync.v1.WorkerSync/Report' && Number(x.attributes['gateway.usage_stored']) > 0),
    );
    const resolve = spans.find((s) => s.name === 'gateway.sync.v1.WorkerSync/ResolveKey')!;
    expect(resolve).toMatchObject({ serviceName: 'test-control-plane', attributes: { 'rpc.system': 'grpc', 'rpc.method': 'ResolveKey', 'rpc.grpc.status_code': 0 } });
    const report = spans.find((s) => s.name === 'gateway.sync.v1.WorkerSync/Report')!;
    expect(report.attributes['gateway.usage_records']).toBeGreaterThan(0);
  });
});
