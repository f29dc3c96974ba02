// `npm start`: the whole gateway on one machine with nothing installed — PGlite for
// PostgreSQL (kept in GATEWAY_DATA_DIR), an in-process worker, a generated worker token, and a
// secret-box key generated on first start and kept in GATEWAY_DATA_DIR/secret.key (mode 0600)
// unless GATEWAY_SECRET_KEY is set.
import { resolve } from 'node:path';
import { generateApiKeySecret } from '../domain/api-key-secret.ts';
import { createLogger } from '../domain/logger.ts';
import { startEmbeddedPostgres } from '../platform/embedded-postgres.ts';
import { loadEmbeddedEnv, loadWorkerEnv, parseHostList, type EmbeddedEnv } from '../platform/env.ts';
import { createSecretBox, loadOrCreateKeyFile } from '../platform/secret-box.ts';
import { migrate, openOrm } from '../persistence/orm.ts';
import { bootstrap } from '../services/bootstrap/bootstrap.ts';
import { startNodeWorker } from '../../workers/runtime/node.ts';
import { workerSettingsFromEnv } from '../../workers/runtime/settings.ts';
import { startControlPlane } from './control-plane-app.ts';
import { exitOnConfigError, onShutdown } from './shutdown.ts';

let env: EmbeddedEnv;
try {
  env = loadEmbeddedEnv();
} catch (err) {
  exitOnConfigError(err);
}
const logger = createLogger('gateway', env.LOG_LEVEL);
const secretKeyFile = resolve(env.GATEWAY_DATA_DIR, 'secret.key');
const secretKey = env.GATEWAY_SECRET_KEY
  ? { key: env.GATEWAY_SECRET_KEY, created: false }
  : await loadOrCreateKeyFile(secretKeyFile).catch((err: unknown) => {
      logger.error('cannot use the secret key file', { file: secretKeyFile, err: String(err) });
      process.exit(1);
    });
if (secretKey.created) logger.info('generated the secret key for secrets at rest', { file: secretKeyFile });
const dataDir = resolve(env.GATEWAY_DATA_DIR, 'postgres');
const pg = await startEmbeddedPostgres(dataDir);
const orm = await openOrm({ databaseUrl: pg.url, poolMax: pg.poolMax });
await migrate(orm, { lock: false });
const boot = await bootstrap(orm, { adminKey: env.GATEWAY_ADMIN_KEY });

const workerToken = generateApiKeySecret(48); // in-process only: never leaves this machine
// Shown in deployment and MCP server answers: GATEWAY_PUBLIC_URLS, else the in-process worker's
// address, known once it listens (WORKER_PORT may be 0); the control plane reads this array as is.
const gatewayUrls: string[] = [...(env.GATEWAY_PUBLIC_URLS ?? [])];
const cp = await startControlPlane({
  orm,
  host: env.HOST,
  httpPort: env.CONTROL_PLANE_PORT,
  grpcPort: env.GRPC_PORT,
  workerToken,
  logger,
  secretBox: createSecretBox(secretKey.key),
  rotationIntervalMs: env.ROTATION_INTERVAL_MS,
  requestLogRetentionDays: env.REQUEST_LOG_RETENTION_DAYS,
  logExportDir: env.LOG_EXPORT_DIR,
  publicUrl: env.PUBLIC_CONTROL_PLANE_URL ?? null,
  gatewayUrls,
  trustedHosts: parseHostList(env.TRUSTED_CUSTOM_HOSTS),
  // PGlite takes one connection: no dedicated LISTEN connection; the one replica polls its change log often.
  sync: { listen: false, pollIntervalMs: 250 },
  tracing: { endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: env.OTEL_SERVICE_NAME ?? 'ai-gateway-control-plane' },
});
// The in-process worker takes the same settings, with the same defaults, as `npm run worker`.
const worker = await startNodeWorker(
  workerSettingsFromEnv(
    loadWorkerEnv({
      CONTROL_PLANE_GRPC_URL: `${env.HOST.includes(':') ? `[${env.HOST}]` : env.HOST}:${cp.grpcPort}`,
      WORKER_TOKEN: workerToken,
      TRUSTED_CUSTOM_HOSTS: env.TRUSTED_CUSTOM_HOSTS,
      LOG_LEVEL: env.LOG_LEVEL,
      OTEL_EXPORTER_OTLP_ENDPOINT: env.OTEL_EXPORTER_OTLP_ENDPOINT,
      OTEL_SERVICE_NAME: env.OTEL_SERVICE_NAME,
    }),
  ),
  env.HOST,
  env.WORKER_PORT,
);
if (!env.GATEWAY_PUBLIC_URLS) gatewayUrls.push(worker.url.replace(/^http:\/\/(0\.0\.0\.0|\[::\])(?=:)/, 'http://localhost'));

const key = boot.created ? boot.adminKey! : '<the admin key printed at first start>';
console.log(`
AI gateway is running (embedded mode, data in ${resolve(env.GATEWAY_DATA_DIR)})

  Control plane  ${cp.httpUrl}/graphql   (GraphiQL; REST under /v1, /v2, /admin/v2)
  gRPC           ${env.HOST}:${cp.grpcPort}
  Worker         ${worker.url}/v1/chat/completions
${boot.created ? `\n  Admin API key (shown once, store it now):\n    ${key}\n` : ''}
Create an API key for an app:

  curl -s ${cp.httpUrl}/v2/api-keys/service \\
    -H 'x-gateway-api-key: ${key}' -H 'content-type: application/json' \\
    -d '{"name":"my-app","workspace_id":"ws-default","scopes":["completions.write"]}'

Then call a model through the worker with that key:

  curl -s ${worker.url}/v1/chat/completions \\
    -H 'x-gateway-api-key: <app key>' -H 'x-gateway-provider: openai' \\
    -H "authorization: Bearer $OPENAI_API_KEY" -H 'content-type: application/json' \\
    -d '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hello"}]}'
`);

onShutdown(logger, async () => {
  await worker.close();
  await cp.close();
  await orm.close();
  await pg.close();
});
