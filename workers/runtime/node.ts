// Node runtime adapter: an http server in front of the web-standard handler.
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../src/domain/logger.ts';
import { trustedHostSet } from '../../src/domain/net/custom-host.ts';
import { sendWebResponse, toWebRequest } from '../../src/platform/node-http.ts';
import { assembleWorker, type AssembledWorker, type WorkerSettings } from './assemble.ts';
import { tunnelRealtime } from './realtime-node.ts';
import { createNodeUpstream } from './upstream-node.ts';

export interface NodeWorker extends AssembledWorker {
  server: Server;
  port: number;
  url: string;
}

export async function startNodeWorker(settings: WorkerSettings, host: string, port: number, logger?: Logger): Promise<NodeWorker> {
  const upstream = createNodeUpstream({ trustedHosts: trustedHostSet(settings.trustedCustomHosts) });
  // Synchronous SHA-256: no thread-pool round trip per request.
  const worker = assembleWorker(settings, upstream.fetch, (raw) => createHash('sha256').update(raw).digest('hex'), logger);
  const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    if (req.url === '/metrics' && req.method === 'GET') {
      // Prometheus scrapes the runtime, not the data plane: no API key, no usage record.
      void worker.metrics.text().then((m) => {
        res.writeHead(200, { 'content-type': m.contentType });
        res.end(m.body);
      });
      return;
    }
    const origin = `http://${req.headers.host ?? 'localhost'}`;
    worker.handler(toWebRequest(req, res, origin)).then(
      (response) => sendWebResponse(res, response),
      (err: unknown) => {
        worker.logger.error('unhandled worker error', { err: String(err) });
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'Internal error', type: 'server_error', param: null, code: 'internal_error' } }));
      },
    );
  });
  // /v1/realtime is a WebSocket: authenticated and routed by the handler, then tunnelled.
  const trustedHosts = trustedHostSet(settings.trustedCustomHosts);
  server.on('upgrade', (req, socket, head) => {
    const path = (req.url ?? '').split('?', 1)[0];
    if (path !== '/v1/realtime') {
      socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      return;
    }
    tunnelRealtime(req, socket, head, worker.handler, trustedHosts).catch((err: unknown) => {
      worker.logger.error('realtime tunnel failed', { err: String(err) });
      socket.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const actualPort = (server.address() as AddressInfo).port;
  worker.logger.info('worker listening', { host, port: actualPort });
  return {
    ...worker,
    server,
    port: actualPort,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}`,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await worker.close();
      await upstream.close();
    },
  };
}
