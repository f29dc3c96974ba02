// Production entry: `npm run worker` (CONTROL_PLANE_GRPC_URL, WORKER_TOKEN, ...).
import { readFileSync } from 'node:fs';
import { loadWorkerEnv, type WorkerEnv } from '../platform/env.ts';
import { startNodeWorker } from '../../workers/runtime/node.ts';
import type { WorkerSettings } from '../../workers/runtime/assemble.ts';
import { workerSettingsFromEnv } from '../../workers/runtime/settings.ts';
import { exitOnConfigError, onShutdown } from './shutdown.ts';

let env: WorkerEnv;
let settings: WorkerSettings;
try {
  env = loadWorkerEnv();
  settings = workerSettingsFromEnv(env, (path) => readFileSync(path, 'utf8'));
} catch (err) {
  exitOnConfigError(err);
}
const worker = await startNodeWorker(settings, env.HOST, env.WORKER_PORT);
onShutdown(worker.logger, () => worker.close());
