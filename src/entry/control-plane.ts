// Production entry: `npm run control-plane` (DATABASE_URL, WORKER_TOKEN, GATEWAY_SECRET_KEY, ...).
import { createLogger } from '../domain/logger.ts';
import { loadGrpcServerTls } from '../grpc/tls-files.ts';
import type { GrpcServerTls } from '../grpc/server.ts';
import { loadControlPlaneEnv, parseHostList, type ControlPlaneEnv } from '../platform/env.ts';
import { createSecretBox } from '../platform/secret-box.ts';
import { migrate, openOrm } from '../persistence/orm.ts';
import { bootstrap } from '../services/bootstrap/bootstrap.ts';
import { startControlPlane } from './control-plane-app.ts';
import { exitOnConfigError, onShutdown } from './shutdown.ts';

let env: ControlPlaneEnv;
let grpcTls: GrpcServerTls | null;
try {
  env = loadControlPlaneEnv();
  grpcTls = loadGrpcServerTls(env.GRPC_TLS_CERT_FILE, env.GRPC_TLS_KEY_FILE);
} catch (err) {
  exitOnConfigError(err);
}
const logger = createLogger('control-plane', env.LOG_LEVEL);
const orm = await openOrm({ databaseUrl: env.DATABASE_URL, poolMax: env.DATABASE_POOL_MAX }).catch((err: unknown) => {
  logger.error('cannot connect to DATABASE_URL', { err: String(err) });
  process.exit(1);
});
await migrate(orm);
const boot = await bootstrap(orm, { adminKey: env.GATEWAY_ADMIN_KEY });
if (boot.created) {
  logger.info('bootstrapped an empty database', { organisation_id: boot.organisationId, workspace_id: boot.workspaceId });
  if (!env.GATEWAY_ADMIN_KEY) console.log(`\nAdmin API key (shown once, store it now): ${boot.adminKey}\n`);
}
const cp = await startControlPlane({
  orm,
  host: env.HOST,
  httpPort: env.CONTROL_PLANE_PORT,
  grpcPort: env.GRPC_PORT,
  workerToken: env.WORKER_TOKEN,
  previousWorkerToken: env.WORKER_TOKEN_PREVIOUS ?? null,
  grpcTls,
  logger,
  secretBox: createSecretBox(env.GATEWAY_SECRET_KEY),
  rotationIntervalMs: env.ROTATION_INTERVAL_MS,
  requestLogRetentionDays: env.REQUEST_LOG_RETENTION_DAYS,
  logExportDir: env.LOG_EXPORT_DIR,
  publicUrl: env.PUBLIC_CONTROL_PLANE_URL ?? null,
  gatewayUrls: env.GATEWAY_PUBLIC_URLS ?? [],
  trustedHosts: parseHostList(env.TRUSTED_CUSTOM_HOSTS),
  sync: { databaseUrl: env.DATABASE_URL, retentionMs: env.RESOURCE_CHANGE_RETENTION_MS, pollIntervalMs: env.SYNC_POLL_INTERVAL_MS },
  secretReferences: { env: process.env, envPrefix: env.SECRET_REFERENCE_ENV_PREFIX, fileRoot: env.SECRET_REFERENCE_FILE_ROOT ?? null },
  tracing: { endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: env.OTEL_SERVICE_NAME },
});
onShutdown(logger, async () => {
  await cp.close();
  await orm.close();
});
