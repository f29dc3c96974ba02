import * as grpc from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import * as protoLoader from '@grpc/proto-loader';
import { HealthImplementation, protoPath as healthProtoPath } from 'grpc-health-check';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../domain/logger.ts';
import type { Tracer } from '../domain/tracing.ts';
import { keyToWire, resourceToWire } from '../domain/sync-codec.ts';
import type { ReportAck, UsageBatch } from '../domain/usage-record.ts';
import { workerSyncPackageDefinition, workerSyncService } from '../platform/grpc-contract.ts';
import { endGrpcSpan, startGrpcSpan } from '../platform/tracing/grpc-span.ts';
import { resolveKeyByHash } from '../services/api-keys/resolve-key.ts';
import { storeUsageBatch } from '../services/usage/store-usage.ts';
import type { WatchHub } from '../services/sync/watch-hub.ts';
import type { WorkerResolvers } from '../services/sync/worker-resolvers.ts';
import { watchService } from './watch.ts';
import { unauthenticatedStatus, workerTokenChecker } from './worker-auth.ts';

export interface GrpcServerOptions {
  orm: MikroORM;
  workerToken: string;
  /** Still accepted while workers roll to a new WORKER_TOKEN (WORKER_TOKEN_PREVIOUS). */
  previousWorkerToken?: string | null | undefined;
  /** PEM certificate chain and private key: the port serves TLS; without them, plaintext. */
  tls?: GrpcServerTls | null | undefined;
  host: string;
  port: number;
  logger: Logger;
  /** The replica's watchers (WorkerSync.Watch). */
  watch: WatchHub;
  /** What Resolve answers for non-key resources. */
  resolvers: WorkerResolvers;
  /** Each stored usage batch's outcome (metrics). */
  onUsageAck?: (ack: ReportAck) => void;
  /** A span per ResolveKey/Resolve call and per Report batch (issue 9 item 5); default: none. */
  tracer?: Tracer;
}

export interface GrpcServerTls {
  certChain: Buffer;
  privateKey: Buffer;
}

export interface RunningGrpcServer {
  port: number;
  health: HealthImplementation;
  close(): Promise<void>;
}

export const SYNC_SERVICE_NAME = 'gateway.sync.v1.WorkerSync';

export async function startGrpcServer(opts: GrpcServerOptions): Promise<RunningGrpcServer> {
  const { orm, logger } = opts;
  const authorised = workerTokenChecker([opts.workerToken, opts.previousWorkerToken]);
  const watch = watchService(opts.watch, authorised, logger);
  const server = new grpc.Server({ 'grpc.keepalive_permit_without_calls': 1, 'grpc.http2.min_ping_interval_without_data_ms': 10_000 });

  const reports = new Set<{ finish(): void }>();
  server.addService(workerSyncService().service, {
    ResolveKey: (call: grpc.ServerUnaryCall<{ key_hash: string }, unknown>, cb: grpc.sendUnaryData<unknown>) => {
      if (!authorised(call.metadata)) return cb(unauthenticatedStatus());
      const span = startGrpcSpan(opts.tracer, 'ResolveKey', call.metadata, {});
      resolveKeyByHash(orm.em.fork(), call.request.key_hash).then(
        (key) => {
          endGrpcSpan(span, grpc.status.OK, { 'gateway.found': !!key });
          cb(null, key ? keyToWire(key) : { found: false, key: null, version: 0 });
        },
        (err: unknown) => {
          endGrpcSpan(span, grpc.status.UNAVAILABLE);
          logger.error('ResolveKey failed', { err: String(err) });
          cb({ code: grpc.status.UNAVAILABLE, details: 'key lookup failed' });
        },
      );
    },

    Resolve: (call: grpc.ServerUnaryCall<{ resource_type: string; resource_key: string }, unknown>, cb: grpc.sendUnaryData<unknown>) => {
      if (!authorised(call.metadata)) return cb(unauthenticatedStatus());
      const { resource_type: type, resource_key: key } = call.request;
      // The key may name a secret's owner: only the type goes on the span.
      const span = startGrpcSpan(opts.tracer, 'Resolve', call.metadata, { 'gateway.resource_type': type });
      opts.resolvers.resolve(orm.em.fork(), type, key).then(
        (resource) => {
          endGrpcSpan(span, grpc.status.OK);
          cb(null, resourceToWire(resource));
        },
        (err: unknown) => {
          endGrpcSpan(span, grpc.status.UNAVAILABLE);
          // The key may name a secret's owner, never the payload: only the type goes to the log.
          logger.error('Resolve failed', { resource_type: type, err: String(err) });
          cb({ code: grpc.status.UNAVAILABLE, details: 'resource lookup failed' });
        },
      );
    },

    Report: (call: grpc.ServerDuplexStream<UsageBatch, ReportAck>) => {
      if (!authorised(call.metadata)) {
        call.emit('error', { ...unauthenticatedStatus(), metadata: new grpc.Metadata() });
        return;
      }
      // Batches are stored one after another so acks come back in order.
      let chain = Promise.resolve();
      const open = { finish: () => void chain.then(() => call.end()) };
      reports.add(open);
      call.on('close', () => reports.delete(open));
      call.on('data', (batch: UsageBatch) => {
        chain = chain.then(async () => {
          const span = startGrpcSpan(opts.tracer, 'Report', call.metadata, { 'gateway.usage_records': batch.records?.length ?? 0 });
          try {
            const ack = await storeUsageBatch(orm.em.fork(), batch);
            endGrpcSpan(span, grpc.status.OK, { 'gateway.usage_stored': ack.stored, 'gateway.usage_duplicates': ack.duplicates, 'gateway.usage_rejected': ack.rejected });
            if (ack.rejected) logger.warn('usage records rejected', { batch_id: batch.batch_id, rejected: ack.rejected });
            opts.onUsageAck?.(ack);
            call.write(ack);
          } catch (err) {
            // No ack: the worker keeps the batch and resends it after reconnecting.
            endGrpcSpan(span, grpc.status.UNAVAILABLE);
            logger.error('storing usage batch failed', { batch_id: batch.batch_id, err: String(err) });
            call.emit('error', { code: grpc.status.UNAVAILABLE, details: 'usage store failed' });
          }
        });
      });
      call.on('end', () => open.finish());
      call.on('error', () => reports.delete(open));
    },

    Watch: watch.handler,
  });

  const health = new HealthImplementation({ '': 'SERVING', [SYNC_SERVICE_NAME]: 'SERVING' });
  health.addToServer(server);
  // Server reflection (grpcurl, grpcui): describes WorkerSync and the health service.
  const healthDef = protoLoader.loadSync(healthProtoPath, { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true });
  new ReflectionService({ ...workerSyncPackageDefinition(), ...healthDef }).addToServer(server);

  const credentials = opts.tls
    ? grpc.ServerCredentials.createSsl(null, [{ cert_chain: opts.tls.certChain, private_key: opts.tls.privateKey }], false)
    : grpc.ServerCredentials.createInsecure();

  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${opts.host}:${opts.port}`, credentials, (err, p) => (err ? reject(err) : resolve(p))),
  );
  logger.info('gRPC server listening', { host: opts.host, port, tls: !!opts.tls });
  return {
    port,
    health,
    close: () =>
      new Promise<void>((resolve) => {
        health.setStatus('', 'NOT_SERVING');
        watch.endAll(); // Watch streams never end on their own
        // Report streams end once what they already received is stored and acknowledged.
        for (const r of reports) r.finish();
        server.tryShutdown(() => resolve());
        setTimeout(() => server.forceShutdown(), 2_000).unref();
      }),
  };
}
