// The gateway's control plane for the bench: a fresh PostgreSQL database, migrated and
// bootstrapped (test/support/stack.ts), the control plane (HTTP + gRPC), and one gateway key.
// By default the worker runs in its own process (worker-process.ts), as it would in production;
// BENCH_WORKER_IN_CONTROL_PLANE=1 starts it here instead, sharing this event loop.
// Commands: `count` -> rows in request_log; `drain` -> the in-process worker's usage stats.
import { startStack } from '../support/stack.ts';
import { announce, runChild, serve } from './child-protocol.ts';

runChild(async () => {
  const inProcess = process.env.BENCH_WORKER_IN_CONTROL_PLANE === '1';
  const stack = await startStack({ workers: inProcess ? 1 : 0 });
  try {
    const { key } = await stack.createKey({ name: 'bench', workspace_id: 'ws-default', scopes: ['completions.write'] });
    const conn = stack.db.orm.em.getConnection();
    const worker = stack.workers[0];
    announce({ grpcPort: stack.controlPlane.grpcPort, key, databaseUrl: stack.db.url, workerUrl: worker?.url ?? null });
    serve(
      {
        count: async () => {
          const rows = (await conn.execute('select count(*)::int as n from request_log')) as { n: number }[];
          return rows[0]?.n ?? 0;
        },
        drain: async () => {
          if (!worker) throw new Error('no worker in this process');
          await worker.reporter.drain(15_000);
          return worker.reporter.snapshot();
        },
      },
      () => stack.close(),
    );
  } catch (err) {
    await stack.close();
    throw err;
  }
});
