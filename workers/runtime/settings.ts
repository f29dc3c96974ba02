import { ConfigError, parseHostList, type WorkerEnv } from '../../src/platform/env.ts';
import type { WorkerSettings } from './assemble.ts';

/** Reads a text file (the runtime's own API: Node's fs or Deno's); used for CONTROL_PLANE_CA_FILE. */
export type ReadTextFile = (path: string) => string;

export function workerSettingsFromEnv(env: WorkerEnv, readTextFile?: ReadTextFile): WorkerSettings {
  return {
    controlPlaneTarget: env.CONTROL_PLANE_GRPC_URL,
    workerToken: env.WORKER_TOKEN,
    controlPlaneTls: env.CONTROL_PLANE_TLS
      ? { ca: env.CONTROL_PLANE_CA_FILE ? readCa(env.CONTROL_PLANE_CA_FILE, readTextFile) : undefined, serverName: env.CONTROL_PLANE_TLS_SERVER_NAME }
      : null,
    trustedCustomHosts: parseHostList(env.TRUSTED_CUSTOM_HOSTS),
    keyCacheTtlMs: env.KEY_CACHE_TTL_MS,
    negativeKeyCacheTtlMs: env.NEGATIVE_KEY_CACHE_TTL_MS,
    maxStaleMs: env.STALE_BOUND_MS,
    usageBatchSize: env.USAGE_BATCH_SIZE,
    usageFlushIntervalMs: env.USAGE_FLUSH_INTERVAL_MS,
    usageBufferMax: env.USAGE_BUFFER_MAX,
    usageOverflow: env.USAGE_OVERFLOW,
    logLevel: env.LOG_LEVEL,
    redisUrl: env.REDIS_URL,
    rateLimitFailureMode: env.RATE_LIMIT_FAILURE_MODE,
    tracing: { endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: env.OTEL_SERVICE_NAME },
    retryAfterMaxMs: env.RETRY_AFTER_MAX_MS,
    streamIdleTimeoutMs: env.STREAM_IDLE_TIMEOUT_MS,
    guardrailsFailOpen: env.GUARDRAILS_FAIL_OPEN,
    breaker: { failureRatio: env.BREAKER_FAILURE_RATIO, minCalls: env.BREAKER_MIN_CALLS, windowMs: env.BREAKER_WINDOW_MS, cooldownMs: env.BREAKER_COOLDOWN_MS },
  };
}

function readCa(file: string, readTextFile: ReadTextFile | undefined): string {
  if (!readTextFile) throw new ConfigError('Invalid configuration:\n  CONTROL_PLANE_CA_FILE: this runtime cannot read files');
  try {
    return readTextFile(file);
  } catch (err) {
    throw new ConfigError(`Invalid configuration:\n  CONTROL_PLANE_CA_FILE: cannot read ${file} (${err instanceof Error ? err.message : String(err)})`);
  }
}
