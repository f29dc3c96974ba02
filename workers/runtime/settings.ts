import { parseHostList, type WorkerEnv } from '../../src/platform/env.ts';
import type { WorkerSettings } from './assemble.ts';

export function workerSettingsFromEnv(env: WorkerEnv): WorkerSettings {
  return {
    controlPlaneTarget: env.CONTROL_PLANE_GRPC_URL,
    workerToken: env.WORKER_TOKEN,
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
  };
}
