// Process settings from the environment. A missing or bad value stops the process with
// a message naming the variable (issue 2: production entry points).
import { z } from 'zod';
import { isValidSecretKey, SECRET_KEY_FORMAT } from './secret-box.ts';

export class ConfigError extends Error {}

const port = (def: number) => z.coerce.number().int().min(0).max(65535).default(def);
const url = (protocols: string[]) =>
  z.string().refine((v) => {
    try {
      return protocols.includes(new URL(v).protocol);
    } catch {
      return false;
    }
  }, `must be a ${protocols.map((p) => p.replace(':', '')).join(' or ')} URL`);

const secretKey = z.string().refine(isValidSecretKey, SECRET_KEY_FORMAT);
// Scheduled key rotation: how often a control plane looks for keys whose next_rotation_at passed (0: never on this replica).
const rotationInterval = z.coerce.number().int().min(0).default(60_000);
// The control plane's public base URL, for links it hands out (invites).
const publicUrl = url(['http:', 'https:']).optional();
// The gateway workers' public base URLs (comma-separated; the first is the default), shown in deployment and MCP server answers.
const gatewayUrls = z.string().transform((v) => v.split(',').map((s) => s.trim().replace(/\/+$/, '')).filter(Boolean)).pipe(z.array(url(['http:', 'https:']))).optional();
// Request logs (issue 9): retention in days (0 keeps everything) and where log exports are written.
const logRetentionDays = z.coerce.number().int().min(0).max(36_500).default(30);
const logExportDir = z.string().min(1).default('.data/log-exports');

// OpenTelemetry (issue 9 item 5), standard variable names: spans go to `${endpoint}/v1/traces`
// (OTLP/HTTP); unset, nothing is recorded. The exporter also reads OTEL_EXPORTER_OTLP_HEADERS.
const otlpEndpoint = url(['http:', 'https:']).optional();
const serviceName = (def: string) => z.string().min(1).default(def);

const common = {
  HOST: z.string().min(1).default('127.0.0.1'),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
};

const controlPlane = z.object({
  ...common,
  DATABASE_URL: url(['postgres:', 'postgresql:']),
  WORKER_TOKEN: z.string().min(16, 'must be at least 16 characters'),
  // Token rotation without downtime: the previous token stays accepted until workers have rolled.
  WORKER_TOKEN_PREVIOUS: z.string().min(16, 'must be at least 16 characters').optional(),
  // TLS for the gRPC channel to workers: both files (PEM) or neither.
  GRPC_TLS_CERT_FILE: z.string().min(1).optional(),
  GRPC_TLS_KEY_FILE: z.string().min(1).optional(),
  CONTROL_PLANE_PORT: port(8080),
  GRPC_PORT: port(50051),
  GATEWAY_ADMIN_KEY: z.string().regex(/^[A-Za-z0-9]{40,}$/, 'must be at least 40 letters and digits').optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  // Watch (issue 5): how long changes are kept for workers catching up, and the safety-net poll.
  RESOURCE_CHANGE_RETENTION_MS: z.coerce.number().int().min(60_000).default(86_400_000),
  SYNC_POLL_INTERVAL_MS: z.coerce.number().int().min(100).default(2_000),
  // Encrypts secrets kept at rest (a scheduled rotation's new key secret until it is claimed).
  GATEWAY_SECRET_KEY: secretKey,
  ROTATION_INTERVAL_MS: rotationInterval,
  PUBLIC_CONTROL_PLANE_URL: publicUrl,
  // Secret references (issue 4 item 5): `env` references read only variables with this prefix;
  // `file` references read only inside this directory (unset: file references are refused).
  SECRET_REFERENCE_ENV_PREFIX: z.string().regex(/^[A-Z][A-Z0-9_]*_$/, 'must be upper-case and end with _').default('SECRETREF_'),
  SECRET_REFERENCE_FILE_ROOT: z.string().min(1).optional(),
  GATEWAY_PUBLIC_URLS: gatewayUrls,
  // Private hosts the control plane may test or ping (MCP upstreams, deployments), like the workers' setting.
  TRUSTED_CUSTOM_HOSTS: z.string().default(''),
  REQUEST_LOG_RETENTION_DAYS: logRetentionDays,
  LOG_EXPORT_DIR: logExportDir,
  OTEL_EXPORTER_OTLP_ENDPOINT: otlpEndpoint,
  OTEL_SERVICE_NAME: serviceName('ai-gateway-control-plane'),
}).superRefine((v, ctx) => {
  if (!v.GRPC_TLS_CERT_FILE !== !v.GRPC_TLS_KEY_FILE) {
    const missing = v.GRPC_TLS_CERT_FILE ? 'GRPC_TLS_KEY_FILE' : 'GRPC_TLS_CERT_FILE';
    ctx.addIssue({ code: 'custom', path: [missing], message: 'GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE must be set together (both or neither)' });
  }
});

const booleanFlag = z.enum(['true', 'false', '1', '0']).default('false').transform((v) => v === 'true' || v === '1');

const worker = z.object({
  ...common,
  CONTROL_PLANE_GRPC_URL: z.string().regex(/^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):\d{1,5}$/, 'must be host:port'),
  WORKER_TOKEN: z.string().min(16, 'must be at least 16 characters'),
  // TLS to the control plane's gRPC port; the CA file (PEM) trusts a private CA or a self-signed certificate.
  CONTROL_PLANE_TLS: booleanFlag,
  CONTROL_PLANE_CA_FILE: z.string().min(1).optional(),
  CONTROL_PLANE_TLS_SERVER_NAME: z.string().min(1).optional(),
  WORKER_PORT: port(8787),
  REDIS_URL: url(['redis:', 'rediss:']).optional(),
  TRUSTED_CUSTOM_HOSTS: z.string().default(''),
  // Revocation reaches workers within this bound until the Watch stream pushes it (issue 5).
  KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).default(5_000),
  NEGATIVE_KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).default(5_000),
  STALE_BOUND_MS: z.coerce.number().int().min(0).default(86_400_000),
  USAGE_FLUSH_INTERVAL_MS: z.coerce.number().int().min(1).default(200),
  USAGE_BATCH_SIZE: z.coerce.number().int().min(1).max(5000).default(200),
  USAGE_BUFFER_MAX: z.coerce.number().int().min(1).default(100_000),
  // When USAGE_BUFFER_MAX records are held: evict the oldest held records, or refuse new ones (counted either way).
  USAGE_OVERFLOW: z.enum(['drop-oldest', 'drop-newest']).default('drop-oldest'),
  // Issue 8 item 6: while Redis is unreachable, count limits per worker (open) or answer 503 (closed).
  RATE_LIMIT_FAILURE_MODE: z.enum(['open', 'closed']).default('open'),
  OTEL_EXPORTER_OTLP_ENDPOINT: otlpEndpoint,
  OTEL_SERVICE_NAME: serviceName('ai-gateway-worker'),
  // Routing (issue 7): the longest Retry-After waited for; longer answers go back as they are.
  RETRY_AFTER_MAX_MS: z.coerce.number().int().min(0).default(60_000),
  // A stream that sends nothing for this long is ended with an SSE error event (0: off unless
  // the request sends x-gateway-stream-idle-timeout).
  STREAM_IDLE_TIMEOUT_MS: z.coerce.number().int().min(0).default(0),
  // Erroring guardrail checks fail the hook (closed) unless this is set.
  GUARDRAILS_FAIL_OPEN: booleanFlag,
  // Circuit breaker per target: failure share, minimum calls, window and cooldown.
  BREAKER_FAILURE_RATIO: z.coerce.number().min(0).max(1).default(0.5),
  BREAKER_MIN_CALLS: z.coerce.number().int().min(1).default(10),
  BREAKER_WINDOW_MS: z.coerce.number().int().min(1).default(30_000),
  BREAKER_COOLDOWN_MS: z.coerce.number().int().min(1).default(30_000),
}).superRefine((v, ctx) => {
  for (const name of ['CONTROL_PLANE_CA_FILE', 'CONTROL_PLANE_TLS_SERVER_NAME'] as const) {
    if (v[name] && !v.CONTROL_PLANE_TLS) ctx.addIssue({ code: 'custom', path: [name], message: 'needs CONTROL_PLANE_TLS=true' });
  }
});

const embedded = z.object({
  ...common,
  CONTROL_PLANE_PORT: port(8080),
  GRPC_PORT: port(50051),
  WORKER_PORT: port(8787),
  GATEWAY_DATA_DIR: z.string().min(1).default('.data'),
  GATEWAY_ADMIN_KEY: z.string().regex(/^[A-Za-z0-9]{40,}$/, 'must be at least 40 letters and digits').optional(),
  TRUSTED_CUSTOM_HOSTS: z.string().default(''),
  // Optional here: without it a key is generated on first start and kept in GATEWAY_DATA_DIR/secret.key.
  GATEWAY_SECRET_KEY: secretKey.optional(),
  ROTATION_INTERVAL_MS: rotationInterval,
  PUBLIC_CONTROL_PLANE_URL: publicUrl,
  GATEWAY_PUBLIC_URLS: gatewayUrls,
  REQUEST_LOG_RETENTION_DAYS: logRetentionDays,
  LOG_EXPORT_DIR: logExportDir,
  // Both parts export to the endpoint; OTEL_SERVICE_NAME, when set, names both (else each its default).
  OTEL_EXPORTER_OTLP_ENDPOINT: otlpEndpoint,
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
});

export type ControlPlaneEnv = z.output<typeof controlPlane>;
export type WorkerEnv = z.output<typeof worker>;
export type EmbeddedEnv = z.output<typeof embedded>;

function load<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): z.output<S> {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = schema.safeParse(cleaned);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => {
    const name = String(i.path[0] ?? '?');
    const missing = i.code === 'invalid_type' && cleaned[name] === undefined;
    return `  ${name}: ${missing ? 'is required but not set' : i.message}`;
  });
  throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
}

export const loadControlPlaneEnv = (env = process.env) => load(controlPlane, env);
export const loadWorkerEnv = (env = process.env) => load(worker, env);
export const loadEmbeddedEnv = (env = process.env) => load(embedded, env);

export function parseHostList(value: string): string[] {
  return value.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
}
