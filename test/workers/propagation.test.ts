// Propagation (issue 5, item 3): three workers, two control-plane replicas on one database. A
// change made through replica A reaches every worker, including those connected only to replica
// B, through Watch: the workers' key-cache TTL is a minute, so only the pushed change explains a
// refusal within a second. (test/bench/propagation.ts measures the distribution.)
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { RunningControlPlane } from '../../src/entry/control-plane-app.ts';
import type { NodeWorker } from '../../workers/runtime/node.ts';
import { startMockProvider, type MockProvider } from '../support/mock-provider.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { chatThrough, type ChatOutcome } from '../support/chat.ts';

const BOUND_MS = 1_000;
const POLL_MS = 20;

let stack: Stack;
let mock: MockProvider;
let replicaA: RunningControlPlane;
let replicaB: RunningControlPlane;
let workers: NodeWorker[];
const sql = <T = any>(q: string, p: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, p);

const chat = (worker: NodeWorker, key: string): Promise<ChatOutcome> => chatThrough(worker.url, key, mock.baseUrl);

const onAll = (key: string) => Promise.all(workers.map((w) => chat(w, key)));

/** Polls every worker until each answers `status` for the key; fails past the bound. */
async function refusedEverywhereWithin(key: string, boundMs = BOUND_MS, expected: { status: number; code: string } = { status: 401, code: 'invalid_api_key' }): Promise<void> {
  const start = Date.now();
  const pending = new Set(workers);
  for (;;) {
    const results = await Promise.all([...pending].map(async (w) => [w, await chat(w, key)] as const));
    for (const [w, r] of results) {
      if (r.status === expected.status) {
        expect(r.code).toBe(expected.code);
        pending.delete(w);
      }
    }
    if (!pending.size) return;
    if (Date.now() - start > boundMs) {
      throw new Error(`${pending.size} of ${workers.length} workers still accept the key ${Date.now() - start} ms after the change`);
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

async function cp(replica: RunningControlPlane, method: string, path: string, body?: unknown) {
  const res = await fetch(`${replica.httpUrl}${path}`, {
    method,
    headers: { 'x-gateway-api-key': stack.adminKey, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const newKey = (replica: RunningControlPlane, body: Record<string, unknown> = {}, subType = 'service') =>
  cp(replica, 'POST', `/v2/api-keys/${subType}`, { name: 'app', workspace_id: 'ws-default', scopes: ['completions.write'], ...body }).then((r) => {
    expect(r.status).toBe(200);
    return r.body as { id: string; key: string };
  });

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  mock = await startMockProvider();
  mock.program({ persist: true });
  replicaA = stack.controlPlane;
  replicaB = await stack.startReplica();
  const slow = { keyCacheTtlMs: 60_000, negativeKeyCacheTtlMs: 60_000 };
  workers = [await stack.startWorker(slow, replicaA), await stack.startWorker(slow, replicaB), await stack.startWorker(slow, replicaB)];
  // Every worker has its Watch stream up (one on A, two on B).
  const deadline = Date.now() + 5_000;
  while (replicaA.sync.watchers().filter((w) => w.caughtUp).length < 1 || replicaB.sync.watchers().filter((w) => w.caughtUp).length < 2) {
    if (Date.now() > deadline) throw new Error('workers did not start watching');
    await new Promise((r) => setTimeout(r, 20));
  }
});
afterAll(async () => {
  await mock?.close();
  await stack?.close();
});

describe('propagation to three workers on two control-plane replicas', () => {
  it('a new key works at once on every worker', async () => {
    const k = await newKey(replicaA);
    expect((await onAll(k.key)).map((r) => r.status)).toEqual([200, 200, 200]);
    const viaB = await newKey(replicaB);
    expect((await onAll(viaB.key)).map((r) => r.status)).toEqual([200, 200, 200]);
  });

  it('a key revoked on replica A is refused by every worker within a second', async () => {
    const k = await newKey(replicaA);
    expect((await onAll(k.key)).map((r) => r.status)).toEqual([200, 200, 200]); // held by every worker now
    expect((await cp(replicaA, 'DELETE', `/v2/api-keys/${k.id}`)).status).toBe(200);
    await refusedEverywhereWithin(k.key);
  });

  it('a key deleted by cascade (its user deleted in SQL) is refused everywhere within a second', async () => {
    const userId = crypto.randomUUID();
    await sql("insert into app_user (id, organisation_id, email, role) values (?, ?, 'propagation@example.com', 'member')", [userId, stack.organisationId]);
    await sql("insert into workspace_member (id, workspace_id, user_id, role) values (?, ?, ?, 'member')", [crypto.randomUUID(), stack.workspaceId, userId]);
    const k = await newKey(replicaB, { user_id: userId }, 'user');
    expect((await onAll(k.key)).map((r) => r.status)).toEqual([200, 200, 200]);
    await sql('delete from app_user where id = ?', [userId]);
    await refusedEverywhereWithin(k.key);
  });

  it("a user key loses its powers everywhere within a second when its user leaves the workspace", async () => {
    const userId = crypto.randomUUID();
    await sql("insert into app_user (id, organisation_id, email, role) values (?, ?, 'leaver@example.com', 'member')", [userId, stack.organisationId]);
    await sql("insert into workspace_member (id, workspace_id, user_id, role) values (?, ?, ?, 'member')", [crypto.randomUUID(), stack.workspaceId, userId]);
    const k = await newKey(replicaA, { user_id: userId }, 'user');
    expect((await onAll(k.key)).map((r) => r.status)).toEqual([200, 200, 200]);
    // No api_key row changes: only the membership does (role ceiling → no scopes).
    await sql('delete from workspace_member where user_id = ?', [userId]);
    await refusedEverywhereWithin(k.key, BOUND_MS, { status: 403, code: 'missing_scope' });
  });

  it('rotated-out secrets are refused everywhere within a second; the current one keeps working', async () => {
    const k = await newKey(replicaA);
    const first = await cp(replicaA, 'POST', `/v2/api-keys/${k.id}/rotate`, { key_transition_period_ms: 3_600_000 });
    expect(first.status).toBe(200);
    expect((await onAll(k.key)).map((r) => r.status)).toEqual([200, 200, 200]); // the previous secret, in its transition
    expect((await onAll(first.body.key)).map((r) => r.status)).toEqual([200, 200, 200]);
    // The transition ends early (as an operator would in SQL): the previous secret stops at once.
    await sql("update api_key set previous_key_expires_at = now() - interval '1 second' where id = ?", [k.id]);
    await refusedEverywhereWithin(k.key);
    expect((await onAll(first.body.key)).map((r) => r.status)).toEqual([200, 200, 200]);
    // Two more rotations through replica B: the first makes `first` the previous secret, the second moves it out of the key.
    const second = await cp(replicaB, 'POST', `/v2/api-keys/${k.id}/rotate`, { key_transition_period_ms: 3_600_000 });
    expect(second.status).toBe(200);
    const third = await cp(replicaB, 'POST', `/v2/api-keys/${k.id}/rotate`, { key_transition_period_ms: 3_600_000 });
    expect(third.status).toBe(200);
    await refusedEverywhereWithin(first.body.key);
    expect((await onAll(third.body.key)).map((r) => r.status)).toEqual([200, 200, 200]);
  });

  it('every worker acknowledged the changes it applied', async () => {
    const [latest] = await sql<{ v: string }>('select max(version) as v from resource_change');
    const deadline = Date.now() + 3_000;
    for (;;) {
      const acked = [...replicaA.sync.watchers(), ...replicaB.sync.watchers()].map((w) => w.ackedVersion);
      if (acked.length === 3 && acked.every((v) => v === Number(latest!.v))) break;
      if (Date.now() > deadline) throw new Error(`acknowledged ${JSON.stringify(acked)}, latest ${latest!.v}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    for (const w of workers) expect(w.watcher.snapshot()).toMatchObject({ connected: true, appliedVersion: Number(latest!.v), resets: 0 });
  });

  it("a worker's /health turns degraded as soon as its Watch stream loses the control plane", async () => {
    const replicaC = await stack.startReplica();
    const lone = await stack.startWorker({ keyCacheTtlMs: 60_000 }, replicaC);
    const health = async () => (await (await fetch(`${lone.url}/health`)).json()) as any;
    const deadline = Date.now() + 3_000;
    while (!(await health()).watch.connected) {
      if (Date.now() > deadline) throw new Error('the worker did not start watching');
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await health()).status).toBe('ok');
    await replicaC.close();
    stack.replicas.splice(stack.replicas.indexOf(replicaC), 1);
    const stopped = Date.now();
    for (;;) {
      const h = await health();
      if (h.status === 'degraded') {
        expect(h.control_plane.reachable).toBe(false);
        expect(h.watch.connected).toBe(false);
        break;
      }
      if (Date.now() - stopped > BOUND_MS) throw new Error(`still ${JSON.stringify(h)}`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  });
});
