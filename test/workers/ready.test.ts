// GET /ready: 503 until the worker has reached the control plane since it started, then 200;
// GET /health (liveness) answers 200 throughout.
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.ts';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
});
afterAll(async () => {
  await stack?.close();
});

/** A port nothing listens on (bound, then released). */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', () => resolve()));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

const get = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as any };
};

describe('worker GET /ready', () => {
  it('is 503 before the control plane was reached and 200 once the Watch stream is connected', async () => {
    const port = await freePort();
    const worker = await stack.startWorker({ controlPlaneTarget: `127.0.0.1:${port}` });

    const before = await get(`${worker.url}/ready`);
    expect(before.status).toBe(503);
    expect(before.body.ready).toBe(false);
    expect(before.body.reason).toMatch(/^control plane not reached yet/);
    const health = await get(`${worker.url}/health`);
    expect(health.status).toBe(200); // liveness unchanged

    await stack.startReplica({ grpcPort: port });
    let after = await get(`${worker.url}/ready`);
    for (let i = 0; i < 200 && after.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      after = await get(`${worker.url}/ready`);
    }
    expect(after).toEqual({ status: 200, body: { ready: true } });
    expect(worker.watcher.snapshot().connected).toBe(true);
  });

  it('is 200 for a worker of a reachable control plane', async () => {
    const worker = await stack.startWorker();
    let res = await get(`${worker.url}/ready`);
    for (let i = 0; i < 200 && res.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 25));
      res = await get(`${worker.url}/ready`);
    }
    expect(res).toEqual({ status: 200, body: { ready: true } });
  });
});
