// One Node worker for the bench (workers/runtime/node.ts with the test stack's settings), talking
// gRPC to the control plane at 127.0.0.1:BENCH_GRPC_PORT. Auth and usage logging are on, as always.
// Commands: `drain` -> waits until every usage record is acknowledged, then the reporter's stats.
import { loadWorkerEnv } from '../../src/platform/env.ts';
import { workerSettingsFromEnv } from '../../workers/runtime/settings.ts';
import { TEST_WORKER_TOKEN } from '../support/stack.ts';
import { startNodeWorker } from '../../workers/runtime/node.ts';
import { announce, runChild, serve } from './child-protocol.ts';

runChild(async () => {
  const grpcPort = Number(process.env.BENCH_GRPC_PORT);
  if (!grpcPort) throw new Error('BENCH_GRPC_PORT is required');
  // Production defaults (usage batching included), as `npm run worker` would run.
  const settings = workerSettingsFromEnv(
    loadWorkerEnv({ CONTROL_PLANE_GRPC_URL: `127.0.0.1:${grpcPort}`, WORKER_TOKEN: TEST_WORKER_TOKEN, TRUSTED_CUSTOM_HOSTS: '127.0.0.1', LOG_LEVEL: 'error' }),
  );
  const worker = await startNodeWorker(settings, '127.0.0.1', 0);
  announce({ url: worker.url });
  serve(
    {
      drain: async () => {
        await worker.reporter.drain(15_000);
        return worker.reporter.snapshot();
      },
    },
    () => worker.close(),
  );
});
