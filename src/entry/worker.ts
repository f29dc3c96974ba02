// Production entry: `npm run worker` (CONTROL_PLANE_GRPC_URL, WORKER_TOKEN, ...).
import { loadWorkerEnv, type WorkerEnv } from '../platform/env.ts';
import { startNodeWorker } from '../../workers/runtime/node.ts';
import { workerSettingsFromEnv } from '../../workers/runtime/settings.ts';
import { exitOnConfigError, onShutdown } from './shutdown.ts';

let env: WorkerEnv;
try {
  env = loadWorkerEnv();
} catch (err) {
  exitOnConfigError(err);
}
const worker = await startNodeWorker(workerSettingsFromEnv(env), env.HOST, env.WORKER_PORT);
onShutdown(worker.logger, () => worker.close());
