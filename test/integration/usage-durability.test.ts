// Issue 5, item 5: usage is never lost and never doubled. A steady stream of chat requests goes
// through an in-process worker while the control plane — a real process — is killed with SIGKILL
// and restarted twice on the same ports and database. Afterwards every answered request has exactly
// one request_log row, and the worker kept serving its cached key while the control plane was away.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { describe, it, expect, afterAll } from 'vitest';
import { generateApiKeySecret } from '../../src/domain/api-key-secret.ts';
import { startNodeWorker, type NodeWorker } from '../../workers/runtime/node.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { startMockProvider, type MockProvider } from '../support/mock-provider.ts';
import { runEntry, type RunningProcess } from '../support/process.ts';
import { TEST_WORKER_TOKEN, workerSettings } from '../support/stack.ts';

/** A port the kernel just handed out on 127.0.0.1, free again for the control plane to bind (and rebind). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** SIGKILL for the whole process tree: killing only the tsx wrapper would leave the control plane running. */
async function crash(p: RunningProcess): Promise<void> {
  await p.kill();
}

/** Polls `cond` every `everyMs` until it holds; fails with `what` after `timeoutMs`. */
async function until(what: string, cond: () => boolean, timeoutMs: number, everyMs = 10): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

interface Sent {
  trace: string;
  sentAt: number;
  doneAt?: number;
  status?: number;
  error?: string;
}

let db: TestDatabase | undefined;
let mock: MockProvider | undefined;
let worker: NodeWorker | undefined;
const controlPlanes: RunningProcess[] = [];

afterAll(async () => {
  // Every process goes, even when the test failed half-way.
  try {
    await worker?.close();
  } finally {
    await Promise.all(controlPlanes.map(crash));
    await mock?.close();
    await db?.drop();
  }
});

describe('usage durability across control-plane crashes', () => {
  it('stores exactly one request_log row per answered request while the control plane is SIGKILLed and restarted twice', { timeout: 120_000 }, async () => {
    db = await createTestDatabase({ migrate: false });
    mock = await startMockProvider();
    const [grpcPort, httpPort] = [await freePort(), await freePort()];
    const adminKey = generateApiKeySecret(44);
    const env = {
      DATABASE_URL: db.url,
      WORKER_TOKEN: TEST_WORKER_TOKEN,
      GATEWAY_ADMIN_KEY: adminKey,
      GATEWAY_SECRET_KEY: randomBytes(32).toString('base64'),
      CONTROL_PLANE_PORT: String(httpPort),
      GRPC_PORT: String(grpcPort),
      ROTATION_INTERVAL_MS: '0',
    };
    const startControlPlane = async () => {
      const cp = runEntry('src/entry/control-plane.ts', env);
      controlPlanes.push(cp);
      await cp.waitFor(new RegExp(`"msg":"control plane listening","http":${httpPort},"grpc":${grpcPort}`), 60_000);
      return cp;
    };
    let cp = await startControlPlane();

    const created = await fetch(`http://127.0.0.1:${httpPort}/v2/api-keys/service`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': adminKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'durability', workspace_id: 'ws-default', scopes: ['completions.write'] }),
    });
    expect(created.status).toBe(200);
    const { key } = (await created.json()) as { key: string };

    // Small, frequent batches so some are in flight (sent, maybe stored, not acknowledged) at each kill;
    // a long key TTL and staleness bound so the worker serves the cached key while the control plane is away.
    worker = await startNodeWorker(
      workerSettings(grpcPort, { keyCacheTtlMs: 600_000, maxStaleMs: 86_400_000, usageBatchSize: 3, usageFlushIntervalMs: 20, usageBufferMax: 100_000 }),
      '127.0.0.1',
      0,
    );
    const reporter = worker.reporter;

    // The control plane's state as the test drives it: down from just before a kill until the restart listens.
    const downWindows: { from: number; to: number }[] = [];
    const inFlightAtKill: number[] = [];
    let downSince: number | null = null;

    const sent: Sent[] = [];
    const pending = new Set<Promise<void>>();
    const send = () => {
      const s: Sent = { trace: `dur-${sent.length}-${randomBytes(4).toString('hex')}`, sentAt: Date.now() };
      sent.push(s);
      const p = fetch(`${worker!.url}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          'x-gateway-api-key': key,
          'x-gateway-provider': 'openai',
          authorization: 'Bearer sk-mock',
          'x-gateway-custom-host': mock!.baseUrl,
          'x-gateway-trace-id': s.trace,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
        signal: AbortSignal.timeout(10_000),
      }).then(
        async (res) => {
          await res.arrayBuffer();
          s.status = res.status;
          s.doneAt = Date.now();
        },
        (err: unknown) => {
          s.error = String(err);
          s.doneAt = Date.now();
        },
      );
      pending.add(p);
      void p.finally(() => pending.delete(p));
    };
    const answered = () => sent.filter((s) => s.status === 200).length;
    const answeredWhileDown = () => (downSince === null ? 0 : sent.filter((s) => s.status === 200 && s.sentAt >= downSince!).length);

    // The steady stream: one request every 25 ms, bounded by MAX_REQUESTS (and by the scenario below).
    const MAX_REQUESTS = 2_400;
    const interval = setInterval(() => {
      if (sent.length < MAX_REQUESTS) send();
    }, 25);
    try {
      await until('40 answers with the control plane up', () => answered() >= 40, 20_000);
      for (let round = 1; round <= 2; round++) {
        // Kill while a batch is on the wire (sent, perhaps stored, not yet acknowledged): it must be resent.
        await until(`a batch awaiting acknowledgement (round ${round})`, () => reporter.snapshot().awaitingAck > 0, 10_000, 1);
        inFlightAtKill.push(reporter.snapshot().awaitingAck);
        downSince = Date.now();
        await crash(cp);
        // Keep serving with the control plane gone: the cached key still works.
        await until(`20 answers with the control plane down (round ${round})`, () => answeredWhileDown() >= 20, 10_000);
        cp = await startControlPlane();
        downWindows.push({ from: downSince, to: Date.now() });
        downSince = null;
        // The worker reconnects on its own and the new process stores (and acknowledges) usage again.
        const acknowledged = reporter.snapshot().acknowledged;
        await until(`usage acknowledged by the restarted control plane (round ${round})`, () => reporter.snapshot().acknowledged >= acknowledged + 20, 30_000);
      }
    } finally {
      clearInterval(interval);
    }
    await Promise.all(pending);

    // Static stability: nothing failed, and requests sent while the control plane was down were served.
    expect(sent.filter((s) => s.status !== 200).map((s) => s.status ?? s.error)).toEqual([]);
    expect(downWindows).toHaveLength(2);
    for (const w of downWindows) {
      const servedWhileDown = sent.filter((s) => s.status === 200 && s.sentAt >= w.from && s.doneAt! <= w.to);
      expect(servedWhileDown.length).toBeGreaterThanOrEqual(20);
    }

    // Everything reaches the control plane once the reporter has drained.
    expect(await reporter.drain(30_000)).toBe(true);
    expect(reporter.snapshot()).toMatchObject({ dropped: 0, queued: 0, awaitingAck: 0 });

    const rows = await db.orm.em.getConnection().execute<{ trace_id: string; n: number }[]>('select trace_id, count(*)::int as n from request_log group by trace_id');
    const perTrace = new Map(rows.map((r) => [r.trace_id, r.n]));
    const ok = sent.filter((s) => s.status === 200);
    expect(ok.length).toBe(sent.length);
    expect(ok.filter((s) => perTrace.get(s.trace) !== 1).map((s) => [s.trace, perTrace.get(s.trace) ?? 0])).toEqual([]);
    expect(rows.filter((r) => r.n !== 1)).toEqual([]);
    const [count] = await db.orm.em.getConnection().execute<{ total: number }[]>('select count(*)::int as total from request_log');
    expect(count?.total).toBe(ok.length);
    expect(reporter.snapshot().acknowledged).toBe(ok.length);
    if (process.env.GW_TEST_VERBOSE) {
      console.log({ requests: sent.length, inFlightAtKill, downMs: downWindows.map((w) => w.to - w.from), seconds: (sent.at(-1)!.sentAt - sent[0]!.sentAt) / 1000 });
    }
  });
});
