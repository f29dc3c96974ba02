// An in-process OTLP/HTTP collector on 127.0.0.1: receives the exporter's JSON POSTs to
// /v1/traces and keeps every span, flattened, with its service name.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface CollectedSpan {
  serviceName: string;
  name: string;
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  attributes: Record<string, string | number | boolean>;
  /** 2: error (OTLP StatusCode). */
  statusCode: number;
}

export interface Collector {
  /** The OTEL_EXPORTER_OTLP_ENDPOINT (no trailing slash). */
  url: string;
  posts: { path: string; contentType: string }[];
  spans: CollectedSpan[];
  /** Resolves with the spans once `predicate` holds for them. */
  waitFor(predicate: (spans: CollectedSpan[]) => boolean): Promise<CollectedSpan[]>;
  close(): Promise<void>;
}

interface AnyValue { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number }
const valueOf = (v: AnyValue): string | number | boolean =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.boolValue ?? v.doubleValue ?? '';
const attrs = (list: { key: string; value: AnyValue }[] = []) => Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks);
  return req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
}

export async function startCollector(): Promise<Collector> {
  const spans: CollectedSpan[] = [];
  const posts: Collector['posts'] = [];
  const waiters: { predicate: (s: CollectedSpan[]) => boolean; resolve: (s: CollectedSpan[]) => void }[] = [];
  const server = createServer((req, res) => {
    void bodyOf(req).then((body) => {
      posts.push({ path: req.url ?? '', contentType: String(req.headers['content-type'] ?? '') });
      if (req.method === 'POST' && req.url === '/v1/traces') {
        const json = JSON.parse(body.toString('utf8')) as { resourceSpans?: any[] };
        for (const rs of json.resourceSpans ?? []) {
          const serviceName = String(attrs(rs.resource?.attributes)['service.name'] ?? '');
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({ serviceName, name: s.name, traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId ?? '', attributes: attrs(s.attributes), statusCode: s.status?.code ?? 0 });
            }
          }
        }
        for (const w of [...waiters]) if (w.predicate(spans)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(spans.slice());
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    posts,
    spans,
    waitFor(predicate) {
      if (predicate(spans)) return Promise.resolve(spans.slice());
      return new Promise((resolve) => waiters.push({ predicate, resolve }));
    },
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
