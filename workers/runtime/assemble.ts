// Builds one worker from its runtime's parts; shared by the Node and Deno entries.
import { createLogger, type Logger, type LogLevel } from '../../src/domain/logger.ts';
import { trustedHostSet } from '../../src/domain/net/custom-host.ts';
import { MemoryStore, type SharedStore } from '../../src/domain/store.ts';
import { WorkerMetrics } from '../../src/platform/metrics/worker-metrics.ts';
import { RedisStore } from '../../src/platform/redis-store.ts';
import { RedisLimitStore } from '../../src/platform/redis-limit-store.ts';
import { MemoryLimitStore } from '../../src/domain/limits/memory-limit-store.ts';
import { ResilientLimitStore, type LimitFailureMode } from '../../src/domain/limits/resilient-limit-store.ts';
import { createTracing, type Tracing, type TracingSettings } from '../../src/platform/tracing/otel-tracer.ts';
import { hashApiKey } from '../../src/domain/api-key-secret.ts';
import type { KeyHasher, UpstreamFetch } from '../contracts.ts';
import { createGatewayHandler, type GatewayHandler, type WorkerHealth, type WorkerReadiness } from '../handler.ts';
import { KeyCache } from '../sync/key-cache.ts';
import { KeyWatcher } from '../sync/key-watcher.ts';
import { ResourceCache } from '../sync/resource-cache.ts';
import { ManagedModelCatalogue } from '../providers/managed-catalogue.ts';
import { ManagedProviderDirectory } from '../providers/managed-directory.ts';
import { UsageReporter } from '../usage/usage-reporter.ts';
import { CircuitBreaker, DEFAULT_BREAKER, type BreakerSettings } from '../routing/circuit-breaker.ts';
import { GrpcControlPlane, type ControlPlaneTls } from './grpc-control-plane.ts';

export interface WorkerSettings {
  controlPlaneTarget: string;
  workerToken: string;
  /** TLS to the control plane's gRPC port (CONTROL_PLANE_TLS, CONTROL_PLANE_CA_FILE, CONTROL_PLANE_TLS_SERVER_NAME); absent: plaintext. */
  controlPlaneTls?: ControlPlaneTls | null | undefined;
  trustedCustomHosts: string[];
  keyCacheTtlMs: number;
  negativeKeyCacheTtlMs: number;
  /** Static stability bound: how long held keys are served while the control plane is away. */
  maxStaleMs: number;
  usageBatchSize: number;
  usageFlushIntervalMs: number;
  usageBufferMax: number;
  usageOverflow?: 'drop-oldest' | 'drop-newest' | undefined;
  logLevel: LogLevel;
  /** Shared store; without it the worker uses the in-process store (embedded default). */
  redisUrl?: string | undefined;
  redisKeyPrefix?: string | undefined;
  /** While Redis is unreachable: per-worker limits (open, default) or 503 (closed). Issue 8 item 6. */
  rateLimitFailureMode?: LimitFailureMode | undefined;
  /** Names this worker on its Watch stream (default: a random id per process). */
  workerId?: string | undefined;
  /** OpenTelemetry (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME); without an endpoint nothing is traced. */
  tracing?: TracingSettings | null | undefined;
  /** Routing (issue 7): longest Retry-After waited for (default 60 s). */
  retryAfterMaxMs?: number | undefined;
  /** Longest gap inside a stream before it is ended (0/absent: only x-gateway-stream-idle-timeout). */
  streamIdleTimeoutMs?: number | undefined;
  /** Erroring guardrail checks pass instead of failing closed. */
  guardrailsFailOpen?: boolean | undefined;
  /** Circuit breaker per target (default DEFAULT_BREAKER). */
  breaker?: BreakerSettings | undefined;
}

export interface AssembledWorker {
  handler: GatewayHandler;
  controlPlane: GrpcControlPlane;
  reporter: UsageReporter;
  keys: KeyCache;
  /** Providers, configs, guardrails and policies resolved from the control plane. */
  resources: ResourceCache;
  watcher: KeyWatcher;
  store: SharedStore;
  logger: Logger;
  /** Prometheus metrics, served at GET /metrics by the runtime. */
  metrics: WorkerMetrics;
  /** Request spans, exported over OTLP when an endpoint is configured. */
  tracing: Tracing;
  close(): Promise<void>;
}

export function assembleWorker(
  settings: WorkerSettings,
  upstream: UpstreamFetch,
  hashKey: KeyHasher = hashApiKey,
  logger = createLogger('worker', settings.logLevel),
): AssembledWorker {
  const controlPlane = new GrpcControlPlane({ target: settings.controlPlaneTarget, workerToken: settings.workerToken, tls: settings.controlPlaneTls });
  const store: SharedStore = settings.redisUrl ? new RedisStore({ url: settings.redisUrl, keyPrefix: settings.redisKeyPrefix }) : new MemoryStore();
  // Issue 8: limits share the worker's Redis connection (one script call per request).
  const limitStore = new ResilientLimitStore(
    store instanceof RedisStore ? new RedisLimitStore(store.client) : new MemoryLimitStore(),
    settings.rateLimitFailureMode ?? 'open',
    (h) => (h.shared ? logger.info('rate limits back on the shared store', { ...h }) : logger.warn('rate-limit store unreachable', { ...h })),
  );
  const keys = new KeyCache(controlPlane, {
    ttlMs: settings.keyCacheTtlMs,
    negativeTtlMs: settings.negativeKeyCacheTtlMs,
    maxStaleMs: settings.maxStaleMs,
    shared: store,
  });
  const resources = new ResourceCache(controlPlane, {
    ttlMs: settings.keyCacheTtlMs,
    negativeTtlMs: settings.negativeKeyCacheTtlMs,
    maxStaleMs: settings.maxStaleMs,
  });
  const reporter = new UsageReporter(
    controlPlane,
    { batchSize: settings.usageBatchSize, flushIntervalMs: settings.usageFlushIntervalMs, maxBuffered: settings.usageBufferMax, overflow: settings.usageOverflow },
    logger,
  );
  reporter.start();
  const watcher = new KeyWatcher(controlPlane, keys, { workerId: settings.workerId ?? crypto.randomUUID(), resources }, logger);
  watcher.start();
  const metrics = new WorkerMetrics({
    usage: () => reporter.snapshot(),
    sync: () => watcher.snapshot(),
    caches: () => ({ keys: keys.size, resources: resources.size }),
    controlPlaneReachable: () => controlPlane.state.reachable,
  });
  const startedAt = new Date().toISOString();
  const health = (): WorkerHealth => {
    const usage = reporter.snapshot();
    const watch = watcher.snapshot();
    const reachable = controlPlane.state.reachable && usage.connected;
    const storeReachable = store instanceof RedisStore ? store.reachable : true;
    return {
      status: reachable && storeReachable ? 'ok' : 'degraded',
      started_at: startedAt,
      control_plane: { reachable, since: new Date(controlPlane.state.since).toISOString() },
      key_cache: { entries: keys.size },
      resource_cache: { entries: resources.size },
      watch: { connected: watch.connected, applied_version: watch.appliedVersion, resets: watch.resets },
      store: { kind: store.kind, reachable: storeReachable },
      limits: limitStore.health(),
      usage: { queued: usage.queued, awaiting_ack: usage.awaitingAck, acknowledged: usage.acknowledged, dropped: usage.dropped },
    };
  };
  // Ready once the control plane answered since start (Watch stream accepted, or a key resolved).
  const ready = (): WorkerReadiness => {
    if (controlPlane.state.firstContact !== null) return { ready: true };
    const last = controlPlane.state.lastError;
    return { ready: false, reason: `control plane not reached yet${last ? ` (${last})` : ''}` };
  };
  const tracing = createTracing(settings.tracing ?? { serviceName: 'ai-gateway-worker' }, { logger });
  // Breakers decide locally and publish opens to the store; startSync picks up other workers' opens.
  const breaker = new CircuitBreaker(settings.breaker ?? DEFAULT_BREAKER, store);
  breaker.startSync();
  const handler = createGatewayHandler({
    store,
    breaker,
    routing: { maxRetryAfterMs: settings.retryAfterMaxMs ?? 60_000 },
    ...(settings.streamIdleTimeoutMs ? { streamIdleTimeoutMs: settings.streamIdleTimeoutMs } : {}),
    guardrailsFailOpen: settings.guardrailsFailOpen ?? false,
    providers: new ManagedProviderDirectory(resources),
    models: new ManagedModelCatalogue(resources),
    resources,
    limits: { store: limitStore, resources, logger },
    metrics,
    keys,
    hashKey,
    upstream,
    usage: reporter,
    trustedHosts: trustedHostSet(settings.trustedCustomHosts),
    logger,
    health,
    ready,
    tracer: tracing.tracer,
  });
  return {
    handler,
    controlPlane,
    reporter,
    keys,
    resources,
    watcher,
    store,
    logger,
    metrics,
    tracing,
    async close() {
      breaker.stop();
      watcher.close();
      await reporter.close(5_000);
      // After the usage drain: the last requests' spans are ended, and exported here.
      await tracing.shutdown();
      controlPlane.close();
      await store.close();
    },
  };
}
