// `npm start`: the whole gateway on one machine with nothing installed — PGlite for
// PostgreSQL (kept in GATEWAY_DATA_DIR), an in-process worker, a generated worker token.
import { resolve } from 'node:path';
import { generateApiKeySecret } from '../domain/api-key-secret.ts';
import { createLogger } from '../domain/logger.ts';
import { startEmbeddedPostgres } from '../platform/embedded-postgres.ts';
import { loadEmbeddedEnv, loadWorkerEnv, type EmbeddedEnv } from '../platform/env.ts';
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
const dataDir = resolve(env.GATEWAY_DATA_DIR, 'postgres');
const pg = await startEmbeddedPostgres(dataDir);
const orm = await openOrm({ databaseUrl: pg.url, poolMax: pg.poolMax });
await migrate(orm, { lock: false });
const boot = await bootstrap(orm, { adminKey: env.GATEWAY_ADMIN_KEY });

const workerToken = generateApiKeySecret(48); // in-process only: never leaves this machine
const cp = await startControlPlane({ orm, host: env.HOST, httpPort: env.CONTROL_PLANE_PORT, grpcPort: env.GRPC_PORT, workerToken, logger });
// The in-process worker takes the same settings, with the same defaults, as `npm run worker`.
const worker = await startNodeWorker(
  workerSettingsFromEnv(
    loadWorkerEnv({
      CONTROL_PLANE_GRPC_URL: `${env.HOST.includes(':') ? `[${env.HOST}]` : env.HOST}:${cp.grpcPort}`,
      WORKER_TOKEN: workerToken,
      TRUSTED_CUSTOM_HOSTS: env.TRUSTED_CUSTOM_HOSTS,
      LOG_LEVEL: env.LOG_LEVEL,
    }),
  ),
  env.HOST,
  env.WORKER_PORT,
);

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
