// `npm run bench:propagation`: how fast a revoked key stops working on every worker (issue 5,
// item 3). Topology as in test/workers/propagation.test.ts: two control-plane replicas on one
// fresh PostgreSQL database, three Node workers (one on replica A, two on replica B), key-cache
// TTL of a minute so only Watch can explain a quick refusal. Each trial creates a key on A, uses
// it on every worker (so each caches it), revokes it on A (DELETE /v2/api-keys/{id}) and polls
// every worker back to back until each answers 401. Prints p50/p99/max over the trials, and writes
// test/bench/out/propagation.md.
//
// Env: BENCH_TRIALS (default 50). Everything runs in this one process (replicas, workers, load),
// so the figures include event-loop contention between them: an upper bound for separate hosts.
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { RunningControlPlane } from '../../src/entry/control-plane-app.ts';
import type { NodeWorker } from '../../workers/runtime/node.ts';
import { startMockProvider } from '../support/mock-provider.ts';
import { hashApiKey } from '../../src/domain/api-key-secret.ts';
import { startStack } from '../support/stack.ts';
import { chatThrough } from '../support/chat.ts';

const TRIALS = Number(process.env.BENCH_TRIALS ?? 50);
if (!Number.isInteger(TRIALS) || TRIALS < 1 || TRIALS > 10_000) throw new Error('BENCH_TRIALS must be an integer in 1..10000');
const GIVE_UP_MS = 10_000;
const OUT_DIR = fileURLToPath(new URL('./out/', import.meta.url));

const loadBefore = loadavg().map((n) => n.toFixed(2)).join(' ');
const stack = await startStack({ workers: 0 });
const mock = await startMockProvider();
mock.program({ persist: true });
const replicaA = stack.controlPlane;
const replicaB = await stack.startReplica();
const settings = { keyCacheTtlMs: 60_000, negativeKeyCacheTtlMs: 60_000, logLevel: 'error' as const };
const workers: { worker: NodeWorker; via: string }[] = [
  { worker: await stack.startWorker(settings, replicaA), via: 'A' },
  { worker: await stack.startWorker(settings, replicaB), via: 'B' },
  { worker: await stack.startWorker(settings, replicaB), via: 'B' },
];

async function waitFor(what: string, pred: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
// When each worker applied the delete (the Watch event itself, without the HTTP polling around it).
const appliedAt = workers.map(() => new Map<string, number>());
workers.forEach(({ worker }, i) => {
  const apply = worker.keys.apply.bind(worker.keys);
  worker.keys.apply = (event) => {
    apply(event);
    if (event.action === 'delete') appliedAt[i]!.set(event.resourceKey, performance.now());
  };
});

await waitFor('every worker watching', () => replicaA.sync.watchers().filter((w) => w.caughtUp).length === 1 && replicaB.sync.watchers().filter((w) => w.caughtUp).length === 2);

const chat = async (worker: NodeWorker, key: string): Promise<number> => (await chatThrough(worker.url, key, mock.baseUrl)).status;

async function admin(replica: RunningControlPlane, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${replica.httpUrl}${path}`, {
    method,
    headers: { 'x-gateway-api-key': stack.adminKey, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Polls the worker back to back until it refuses the key; the time since `from` when it first did. */
async function refusedAfter(worker: NodeWorker, key: string, from: number): Promise<number> {
  for (;;) {
    const status = await chat(worker, key);
    const now = performance.now();
    if (status === 401) return now - from;
    if (status !== 200) throw new Error(`unexpected status ${status}`);
    if (now - from > GIVE_UP_MS) throw new Error(`key still accepted after ${GIVE_UP_MS} ms`);
  }
}

interface Trial {
  /** DELETE sent → every worker refuses. */
  fromRequest: number;
  /** DELETE answered (committed) → every worker refuses. */
  fromCommit: number;
  perWorker: number[];
  /** DELETE answered → the delete event applied by every worker's key cache. */
  applied: number;
}
const trials: Trial[] = [];
for (let i = 0; i < TRIALS; i++) {
  const k = (await admin(replicaA, 'POST', '/v2/api-keys/service', { name: `prop-${i}`, workspace_id: 'ws-default', scopes: ['completions.write'] })) as { id: string; key: string };
  const statuses = await Promise.all(workers.map((w) => chat(w.worker, k.key)));
  if (statuses.some((s) => s !== 200)) throw new Error(`new key not accepted everywhere: ${statuses.join(',')}`);
  const sent = performance.now();
  await admin(replicaA, 'DELETE', `/v2/api-keys/${k.id}`);
  const committed = performance.now();
  const perWorker = await Promise.all(workers.map((w) => refusedAfter(w.worker, k.key, committed)));
  const last = Math.max(...perWorker);
  const hash = await hashApiKey(k.key);
  const applied = Math.max(...appliedAt.map((m) => (m.get(hash) ?? Number.NaN) - committed));
  trials.push({ fromRequest: last + (committed - sent), fromCommit: last, perWorker, applied });
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}
const ms = (v: number) => v.toFixed(1);
const row = (label: string, values: number[]) => `| ${label} | ${ms(quantile(values, 0.5))} | ${ms(quantile(values, 0.99))} | ${ms(Math.max(...values))} |`;
const viaA = trials.map((t) => t.perWorker[0]!);
const viaB = trials.flatMap((t) => t.perWorker.slice(1));
const table = [
  '| measured (ms) | p50 | p99 | max |',
  '|---|---:|---:|---:|',
  row('DELETE answered → all 3 workers refuse', trials.map((t) => t.fromCommit)),
  row('DELETE sent → all 3 workers refuse', trials.map((t) => t.fromRequest)),
  row('DELETE answered → delete event applied on all 3 workers', trials.map((t) => t.applied)),
  row('worker on replica A (where the key was revoked)', viaA),
  row('workers on replica B (fan-out by NOTIFY)', viaB),
].join('\n');
const p99 = quantile(trials.map((t) => t.fromRequest), 0.99);
const report = `- Date: ${new Date().toISOString()}
- Command: \`npm run bench:propagation\` (${TRIALS} trials)
- Machine: ${cpus().length} x ${cpus()[0]?.model.trim() ?? '?'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}
- Load average: ${loadBefore} before, ${loadavg().map((n) => n.toFixed(2)).join(' ')} after
- Topology: 2 control-plane replicas (LISTEN/NOTIFY fan-out, 2 s safety poll), 3 workers (1 on A, 2 on B), key-cache TTL 60 s, all in one process

${table}

p99 (DELETE sent → refused everywhere) ${p99 < 1_000 ? 'is within' : 'MISSES'} the one-second aim.
`;
console.log(report);
await mkdir(OUT_DIR, { recursive: true });
await writeFile(`${OUT_DIR}propagation.md`, report);

const resets = workers.reduce((n, w) => n + w.worker.watcher.snapshot().resets, 0);
if (resets) console.warn(`workers were reset ${resets} times during the run`);
await mock.close();
await stack.close();
