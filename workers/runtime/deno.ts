// Deno runtime adapter and entry: `deno run --node-modules-dir=manual -A workers/runtime/deno.ts`
// (CONTROL_PLANE_GRPC_URL, WORKER_TOKEN, CONTROL_PLANE_TLS, CONTROL_PLANE_CA_FILE, WORKER_PORT, HOST, ...).
// Excluded from tsc (Node types); checked with `deno check`.
declare const Deno: any;

import { trustedHostSet } from '../../src/domain/net/custom-host.ts';
import { loadWorkerEnv, type WorkerEnv } from '../../src/platform/env.ts';
import { workerSettingsFromEnv } from './settings.ts';
import { assembleWorker, type AssembledWorker, type WorkerSettings } from './assemble.ts';
import { createDenoUpstream } from './upstream-deno.ts';

export interface DenoWorker extends AssembledWorker {
  port: number;
  url: string;
}

const INTERNAL_ERROR = JSON.stringify({ error: { message: 'Internal error', type: 'server_error', param: null, code: 'internal_error' } });

export async function startDenoWorker(settings: WorkerSettings, host: string, port: number): Promise<DenoWorker> {
  const upstream = createDenoUpstream({ trustedHosts: trustedHostSet(settings.trustedCustomHosts) });
  const worker = assembleWorker(settings, upstream.fetch);
  let listening!: (addr: { hostname: string; port: number }) => void;
  const listened = new Promise<{ hostname: string; port: number }>((resolve) => (listening = resolve));
  const server = Deno.serve(
    { hostname: host, port, onListen: (addr: { hostname: string; port: number }) => listening(addr) },
    async (req: Request): Promise<Response> => {
      try {
        if (req.method === 'GET' && new URL(req.url).pathname === '/metrics') {
          const m = await worker.metrics.text();
          return new Response(m.body, { headers: { 'content-type': m.contentType } });
        }
        return await worker.handler(req);
      } catch (err) {
        worker.logger.error('unhandled worker error', { err: String(err) });
        return new Response(INTERNAL_ERROR, { status: 500, headers: { 'content-type': 'application/json' } });
      }
    },
  );
  const addr = await listened;
  worker.logger.info('worker listening', { runtime: 'deno', host, port: addr.port });
  return {
    ...worker,
    port: addr.port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${addr.port}`,
    async close() {
      await server.shutdown();
      await worker.close();
      await upstream.close();
    },
  };
}

function exitOnConfigError(err: unknown): never {
  console.error(err instanceof Error ? err.message : String(err));
  Deno.exit(1);
  throw err; // unreachable: Deno.exit does not return
}

async function main(): Promise<void> {
  let env: WorkerEnv;
  let settings: WorkerSettings;
  try {
    env = loadWorkerEnv(Deno.env.toObject());
    settings = workerSettingsFromEnv(env, (path) => Deno.readTextFileSync(path));
  } catch (err) {
    exitOnConfigError(err);
  }
  const worker = await startDenoWorker(settings, env.HOST, env.WORKER_PORT);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    worker.logger.info('shutting down', { signal });
    const force = setTimeout(() => Deno.exit(1), 10_000);
    Deno.unrefTimer(force);
    worker.close().then(
      () => Deno.exit(0),
      (err: unknown) => {
        worker.logger.error('shutdown failed', { err: String(err) });
        Deno.exit(1);
      },
    );
  };
  Deno.addSignalListener('SIGTERM', () => stop('SIGTERM'));
  Deno.addSignalListener('SIGINT', () => stop('SIGINT'));
}

if (import.meta.main) await main();
