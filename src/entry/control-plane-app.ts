// The control plane's servers: HTTP (GraphQL + REST adapters + health) and gRPC for workers.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createGraphQL } from '../../graphql/server.ts';
import { AppError, errorResponse } from '../domain/errors.ts';
import type { Logger } from '../domain/logger.ts';
import { startGrpcServer, type GrpcServerTls, type RunningGrpcServer } from '../grpc/server.ts';
import { remoteAddress, sendWebResponse, toWebRequest } from '../platform/node-http.ts';
import { ControlPlaneMetrics } from '../platform/metrics/control-plane-metrics.ts';
import type { SecretBox } from '../platform/secret-box.ts';
import { endHttpSpan, startHttpSpan } from '../platform/tracing/http-span.ts';
import { createTracing, type TracingSettings } from '../platform/tracing/otel-tracer.ts';
import { createRestRouter } from '../rest/router.ts';
import { startRotationScheduler } from '../services/api-keys/rotation-scheduler.ts';
import type { SecretResolverOptions } from '../services/secret-references/resolve-secret-reference.ts';
import { createWorkerResolvers } from '../services/sync/worker-resolvers.ts';
import { startExportJob } from '../services/log-exports/export-job.ts';
import { startLogMaintenance } from '../services/request-logs/log-maintenance.ts';
import { startSync, type SyncOptions, type SyncService } from '../services/sync/sync-service.ts';

export interface ControlPlaneOptions {
  orm: MikroORM;
  host: string;
  httpPort: number;
  grpcPort: number;
  workerToken: string;
  /** WORKER_TOKEN_PREVIOUS: also accepted during a worker token rotation. */
  previousWorkerToken?: string | null | undefined;
  /** TLS for the gRPC port (GRPC_TLS_CERT_FILE + GRPC_TLS_KEY_FILE). */
  grpcTls?: GrpcServerTls | null | undefined;
  logger: Logger;
  /** Scheduled key rotation pass interval (default 60 s); 0 turns the job off on this replica. */
  rotationIntervalMs?: number;
  /** Seals secrets kept at rest (GATEWAY_SECRET_KEY): a scheduled rotation's new key secret until claimed. */
  secretBox: SecretBox;
  /** Public base URL of the control plane (PUBLIC_CONTROL_PLANE_URL), for links it hands out. */
  publicUrl?: string | null;
  /** Public base URLs of the gateway workers (GATEWAY_PUBLIC_URLS), shown in deployment and MCP server answers. */
  gatewayUrls?: string[];
  /** TRUSTED_CUSTOM_HOSTS: private hosts the MCP upstream test and deployment ping may reach. */
  trustedHosts?: string[];
  /** Watch: change feed (LISTEN/NOTIFY + poll) and resource_change retention. */
  sync?: SyncOptions;
  /** Where `env` and `file` secret references may read (SECRET_REFERENCE_ENV_PREFIX, SECRET_REFERENCE_FILE_ROOT). */
  secretReferences?: SecretResolverOptions;
  /** Log exports (issue 9): where the job writes JSONL files (LOG_EXPORT_DIR) and how often it polls. */
  logExportDir?: string;
  logExportPollMs?: number;
  /** Request-log retention in days (REQUEST_LOG_RETENTION_DAYS; 0 keeps everything). */
  requestLogRetentionDays?: number;
  /** OpenTelemetry (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME): a span per HTTP request and gRPC call. */
  tracing?: TracingSettings | null;
}

export interface RunningControlPlane {
  httpUrl: string;
  httpPort: number;
  grpcPort: number;
  grpc: RunningGrpcServer;
  /** Watch on this replica: connected watchers, their acknowledged versions, the change feed. */
  sync: SyncService;
  close(): Promise<void>;
}

export async function startControlPlane(opts: ControlPlaneOptions): Promise<RunningControlPlane> {
  const { orm, logger } = opts;
  const graphql = createGraphQL(orm, logger, { publicUrl: opts.publicUrl ?? null, secretBox: opts.secretBox, gatewayUrls: opts.gatewayUrls ?? [], trustedHosts: opts.trustedHosts ?? [] });
  const rest = createRestRouter(graphql.run, logger);
  const tracing = createTracing(opts.tracing ?? { serviceName: 'ai-gateway-control-plane' }, { logger });

  async function health(): Promise<Response> {
    try {
      await orm.em.getConnection().execute('select 1');
      return Response.json({ status: 'ok' });
    } catch {
      return Response.json({ status: 'unavailable', database: 'unreachable' }, { status: 503 });
    }
  }

  // Gauges read the sync service at scrape time; it starts after the HTTP port is bound.
  let syncRef: SyncService | null = null;
  const metrics = new ControlPlaneMetrics({
    watchers: () => syncRef?.hub.count ?? 0,
    feedVersion: () => syncRef?.feed.version ?? 0,
    feedListening: () => syncRef?.feed.isListening ?? false,
  });

  async function route(request: Request, ip: string | null, matched: { route?: string }): Promise<[string, Response]> {
    const path = new URL(request.url).pathname;
    if (path === '/graphql') return ['graphql', await graphql.yoga.fetch(request, { ip })];
    if (path === '/health') return ['health', await health()];
    if (path === '/metrics' && request.method === 'GET') {
      const m = await metrics.text();
      return ['metrics', new Response(m.body, { headers: { 'content-type': m.contentType } })];
    }
    const r = await rest.handle(request, ip, matched);
    return r ? ['rest', r] : ['unknown', errorResponse(new AppError(404, 'not_found_error', 'unknown_route', `No route for ${request.method} ${path}`))];
  }

  async function handle(request: Request, ip: string | null): Promise<Response> {
    const started = performance.now();
    const span = startHttpSpan(tracing.tracer, request);
    const matched: { route?: string } = {};
    const [api, response] = await route(request, ip, matched);
    metrics.observe(api, response.status, (performance.now() - started) / 1_000);
    void endHttpSpan(span, request, api, response.status, matched.route ?? null);
    return response;
  }

  const server: Server = createServer((req, res) => {
    const request = toWebRequest(req, res, `http://${req.headers.host ?? 'localhost'}`);
    handle(request, remoteAddress(req)).then(
      (response) => sendWebResponse(res, response),
      (err: unknown) => {
        logger.error('control plane request failed', { err: String(err) });
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'Internal error', type: 'server_error', param: null, code: 'internal_error' } }));
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.httpPort, opts.host, () => resolve());
  });
  const httpPort = (server.address() as AddressInfo).port;
  const resolvers = createWorkerResolvers({ secretBox: opts.secretBox, secretReferences: opts.secretReferences ?? { env: process.env } });
  const sync = await startSync(orm, logger, opts.sync, resolvers);
  syncRef = sync;
  const grpc = await startGrpcServer({
    orm,
    workerToken: opts.workerToken,
    previousWorkerToken: opts.previousWorkerToken,
    tls: opts.grpcTls,
    host: opts.host, port: opts.grpcPort, logger, watch: sync.hub, resolvers, tracer: tracing.tracer,
    onUsageAck: (ack) => {
      if (ack.stored) metrics.usageRecords.inc({ result: 'stored' }, ack.stored);
      if (ack.duplicates) metrics.usageRecords.inc({ result: 'duplicate' }, ack.duplicates);
      if (ack.rejected) metrics.usageRecords.inc({ result: 'rejected' }, ack.rejected);
    } }).catch(async (err: unknown) => {
    await sync.stop();
    throw err;
  });
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  const rotation = opts.rotationIntervalMs === 0 ? null : startRotationScheduler(orm, opts.secretBox, { intervalMs: opts.rotationIntervalMs, logger });
  const logExports = startExportJob(orm, { dir: opts.logExportDir, intervalMs: opts.logExportPollMs, logger });
  const logMaintenance = startLogMaintenance(orm, { retentionDays: opts.requestLogRetentionDays, logger });
  logger.info('control plane listening', { http: httpPort, grpc: grpc.port });
  return {
    httpUrl: `http://${host}:${httpPort}`,
    httpPort,
    grpcPort: grpc.port,
    grpc,
    sync,
    async close() {
      await rotation?.stop();
      await logExports.stop();
      await logMaintenance.stop();
      await grpc.close();
      await sync.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await tracing.shutdown();
    },
  };
}
