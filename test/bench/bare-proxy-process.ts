// The baseline: a bare reverse proxy, node:http in front, undici.request over kept-alive
// connections behind, the answer piped straight back. No auth, no parsing, no logging.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { Agent, request } from 'undici';
import { announce, runChild, serve } from './child-protocol.ts';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host']);

function strip<T>(headers: Record<string, T | undefined>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
  return out;
}

runChild(async () => {
  const upstream = process.env.BENCH_UPSTREAM_URL;
  if (!upstream) throw new Error('BENCH_UPSTREAM_URL is required');
  // The same pool shape as the worker's upstream (workers/runtime/upstream-node.ts).
  const agent = new Agent({ connections: 256, keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000 });
  const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    request(upstream + (req.url ?? '/'), {
      method: req.method as 'POST',
      headers: strip(req.headers),
      body: req,
      dispatcher: agent,
    }).then(
      async (up) => {
        res.writeHead(up.statusCode, strip(up.headers));
        await pipeline(up.body, res);
      },
      () => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"upstream unreachable"}}');
      },
    ).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  announce({ url: `http://127.0.0.1:${port}`, port });
  serve({}, async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await agent.close();
  });
});
