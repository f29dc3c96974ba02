// Static stability (issue 5, item 4): with its control plane gone, a worker keeps serving the
// keys it holds, refuses unknown keys with a clear 503, says it is degraded and since when, and
// resyncs when the control plane returns — without a restart.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { silentLogger } from '../../src/domain/logger.ts';
import { startControlPlane, type RunningControlPlane } from '../../src/entry/control-plane-app.ts';
import type { NodeWorker } from '../../workers/runtime/node.ts';
import { startMockProvider, type MockProvider } from '../support/mock-provider.ts';
import { startStack, TEST_WORKER_TOKEN, type Stack } from '../support/stack.ts';

let stack: Stack;
let mock: MockProvider;
let replica: RunningControlPlane | null = null;
let worker: NodeWorker;

const startReplicaOn = (grpcPort: number) =>
  startControlPlane({
    orm: stack.db.orm,
    host: '127.0.0.1',
    httpPort: 0,
    grpcPort,
    workerToken: TEST_WORKER_TOKEN,
    logger: silentLogger,
    secretBox: stack.secretBox,
    rotationIntervalMs: 0,
  });

const chat = async (key: string) => {
  const res = await fetch(`${worker.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'x-gateway-api-key': key, 'x-gateway-provider': 'openai', authorization: 'Bearer sk', 'x-gateway-custom-host': mock.baseUrl, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { status: res.status, body: (await res.json()) as any };
};
const health = async () => (await (await fetch(`${worker.url}/health`)).json()) as any;

async function until<T>(what: string, probe: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  mock = await startMockProvider();
  mock.program({ persist: true });
  replica = await startReplicaOn(0);
  // A short key TTL: only the staleness bound (24 h by default) can explain serving while the control plane is away.
  worker = await stack.startWorker({ keyCacheTtlMs: 100 }, replica);
});
afterAll(async () => {
  await replica?.close();
  await mock?.close();
  await stack?.close();
});

describe('static stability', () => {
  it('serves held keys, refuses unknown ones with 503, reports degraded, and resyncs on return', async () => {
    const held = await stack.createKey({ name: 'held', workspace_id: 'ws-default', scopes: ['completions.write'] });
    expect((await chat(held.key)).status).toBe(200);
    expect((await health()).status).toBe('ok');

    const port = replica!.grpcPort;
    const stoppedAt = Date.now();
    await replica!.close();
    replica = null;

    const degraded = await until('degraded health', health, (h) => h.status === 'degraded');
    expect(degraded.control_plane.reachable).toBe(false);
    expect(Date.parse(degraded.control_plane.since)).toBeGreaterThanOrEqual(stoppedAt - 1000);

    await new Promise((r) => setTimeout(r, 150)); // past the key TTL: the entry is stale now
    expect((await chat(held.key)).status).toBe(200);

    // Created on the other (healthy) replica: this worker has never seen it.
    const fresh = await stack.createKey({ name: 'fresh', workspace_id: 'ws-default', scopes: ['completions.write'] });
    const refused = await chat(fresh.key);
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatchObject({ type: 'service_unavailable_error', code: 'control_plane_unavailable' });

    replica = await startReplicaOn(port);
    await until('healthy again', health, (h) => h.status === 'ok', 15_000);
    expect((await chat(fresh.key)).status).toBe(200);
    expect((await chat(held.key)).status).toBe(200);
  });
});
