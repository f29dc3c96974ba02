// A running gateway for integration and end-to-end tests: control plane (HTTP + gRPC) on a
// fresh database, bootstrapped, plus any number of Node workers; every port ephemeral.
import type { MikroORM } from '@mikro-orm/postgresql';
import { createLogger, silentLogger, type Logger } from '../../src/domain/logger.ts';
import { startControlPlane, type RunningControlPlane } from '../../src/entry/control-plane-app.ts';
import type { GrpcServerTls } from '../../src/grpc/server.ts';
import { createSecretBox, type SecretBox } from '../../src/platform/secret-box.ts';
import { openOrm } from '../../src/persistence/orm.ts';
import type { SyncOptions } from '../../src/services/sync/sync-service.ts';
import { bootstrap } from '../../src/services/bootstrap/bootstrap.ts';
import type { WorkerSettings } from '../../workers/runtime/assemble.ts';
import { startNodeWorker, type NodeWorker } from '../../workers/runtime/node.ts';
import { createTestDatabase, TEST_REDIS_URL, type TestDatabase } from './db.ts';

export const TEST_WORKER_TOKEN = 'test-worker-token-0123456789abcdef';
/** The stack's GATEWAY_SECRET_KEY (32 bytes, base64): tests open sealed values with {@link Stack.secretBox}. */
export const TEST_SECRET_KEY = Buffer.from('gateway-test-secret-key-32-bytes').toString('base64');

export interface Stack {
  db: TestDatabase;
  controlPlane: RunningControlPlane;
  adminKey: string;
  /** The control plane's secret box (GATEWAY_SECRET_KEY = {@link TEST_SECRET_KEY}). */
  secretBox: SecretBox;
  organisationId: string;
  workspaceId: string;
  workers: NodeWorker[];
  /** A worker of `controlPlane` (default: the stack's first replica). */
  startWorker(overrides?: Partial<WorkerSettings>, controlPlane?: RunningControlPlane): Promise<NodeWorker>;
  /** Replicas started with {@link startReplica} (not the first one). */
  replicas: RunningControlPlane[];
  /** Another control-plane replica on the same database, with its own ORM (closed with the stack). */
  startReplica(opts?: ReplicaOptions): Promise<RunningControlPlane>;
  /** Creates a key through the REST adapter, as a user would. */
  createKey(body: Record<string, unknown>, subType?: 'service' | 'user'): Promise<{ id: string; key: string }>;
  close(): Promise<void>;
}

export interface ReplicaOptions {
  sync?: SyncOptions;
  /** Default: the stack's. */
  previousWorkerToken?: string | null;
  /** Default: an ephemeral port. */
  grpcPort?: number;
}

export interface StackOptions {
  workers?: number;
  adminKey?: string;
  verbose?: boolean;
  rotationIntervalMs?: number;
  publicUrl?: string | null;
  /** GATEWAY_PUBLIC_URLS of the control plane. */
  gatewayUrls?: string[];
  /** TRUSTED_CUSTOM_HOSTS of the control plane (default 127.0.0.1, as the workers'). */
  trustedHosts?: string[];
  sync?: SyncOptions;
  /** The control plane's WORKER_TOKEN (default {@link TEST_WORKER_TOKEN}); workers still send `workerSettings().workerToken`. */
  workerToken?: string;
  /** WORKER_TOKEN_PREVIOUS on the control plane (and its replicas unless they say otherwise). */
  previousWorkerToken?: string | null;
  /** TLS on the control plane's gRPC port (and its replicas'). */
  grpcTls?: GrpcServerTls | null;
  /** The control plane's logger (default: silent, or debug lines with `verbose`). */
  logger?: Logger;
  /** Every worker's logger (default: the worker's own, at `logLevel`). */
  workerLogger?: Logger;
}

export function workerSettings(grpcPort: number, overrides: Partial<WorkerSettings> = {}): WorkerSettings {
  return {
    controlPlaneTarget: `127.0.0.1:${grpcPort}`,
    workerToken: TEST_WORKER_TOKEN,
    trustedCustomHosts: ['127.0.0.1'],
    keyCacheTtlMs: 60_000,
    negativeKeyCacheTtlMs: 5_000,
    maxStaleMs: 86_400_000,
    usageBatchSize: 100,
    usageFlushIntervalMs: 20,
    usageBufferMax: 10_000,
    logLevel: 'error',
    redisUrl: TEST_REDIS_URL,
    redisKeyPrefix: `gwtest:${grpcPort}:`,
    ...overrides,
  };
}

export async function startStack(
  opts: StackOptions = {
    verbose: !!process.env.GW_TEST_VERBOSE,
  },
): Promise<Stack> {
  const db = await createTestDatabase();
  const boot = await bootstrap(db.orm, { adminKey: opts.adminKey });
  const logger = opts.logger ?? (opts.verbose ? createLogger('test-cp', 'debug') : silentLogger);
  const cpWorkerToken = opts.workerToken ?? TEST_WORKER_TOKEN;
  const secretBox = createSecretBox(TEST_SECRET_KEY);
  const controlPlane = await startControlPlane({
    orm: db.orm,
    host: '127.0.0.1',
    httpPort: 0,
    grpcPort: 0,
    workerToken: cpWorkerToken,
    previousWorkerToken: opts.previousWorkerToken ?? null,
    grpcTls: opts.grpcTls ?? null,
    logger,
    secretBox,
    rotationIntervalMs: opts.rotationIntervalMs,
    publicUrl: opts.publicUrl ?? null,
    gatewayUrls: opts.gatewayUrls,
    trustedHosts: opts.trustedHosts ?? ['127.0.0.1'],
    sync: opts.sync,
  });
  const workers: NodeWorker[] = [];
  const startWorker = async (overrides: Partial<WorkerSettings> = {}, via: RunningControlPlane = controlPlane) => {
    // Same shared-store prefix for every worker of the stack, whichever replica it talks to.
    const w = await startNodeWorker(
      { ...workerSettings(controlPlane.grpcPort, overrides), controlPlaneTarget: overrides.controlPlaneTarget ?? `127.0.0.1:${via.grpcPort}` },
      '127.0.0.1',
      0,
      opts.workerLogger,
    );
    workers.push(w);
    return w;
  };
  const replicas: RunningControlPlane[] = [];
  const replicaOrms: MikroORM[] = [];
  const startReplica = async (replicaOpts: ReplicaOptions = {}) => {
    const orm = await openOrm({ databaseUrl: db.url, poolMax: 5 });
    replicaOrms.push(orm);
    const replica = await startControlPlane({
      orm,
      host: '127.0.0.1',
      httpPort: 0,
      grpcPort: replicaOpts.grpcPort ?? 0,
      workerToken: cpWorkerToken,
      previousWorkerToken: replicaOpts.previousWorkerToken !== undefined ? replicaOpts.previousWorkerToken : (opts.previousWorkerToken ?? null),
      grpcTls: opts.grpcTls ?? null,
      logger,
      secretBox,
      rotationIntervalMs: 0,
      publicUrl: opts.publicUrl ?? null,
      gatewayUrls: opts.gatewayUrls,
      trustedHosts: opts.trustedHosts ?? ['127.0.0.1'],
      sync: replicaOpts.sync ?? opts.sync,
    });
    replicas.push(replica);
    return replica;
  };
  for (let i = 0; i < (opts.workers ?? 1); i++) await startWorker();
  const stack: Stack = {
    db,
    controlPlane,
    adminKey: boot.adminKey!,
    secretBox,
    organisationId: boot.organisationId,
    workspaceId: boot.workspaceId,
    workers,
    startWorker,
    replicas,
    startReplica,
    async createKey(body, subType = 'service') {
      const res = await fetch(`${controlPlane.httpUrl}/v2/api-keys/${subType}`, {
        method: 'POST',
        headers: { 'x-gateway-api-key': boot.adminKey!, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { id: string; key: string };
      if (res.status !== 200) throw new Error(`createKey failed: ${res.status} ${JSON.stringify(json)}`);
      return json;
    },
    async close() {
      for (const w of workers) await w.close();
      for (const r of replicas) await r.close();
      for (const o of replicaOrms) await o.close(true);
      await controlPlane.close();
      await db.drop();
    },
  };
  return stack;
}
