// WorkerSync.Watch (issue 5, item 2): catch-up from a version, answers about held resources,
// live changes from any replica, acknowledgements, worker-token auth, reset past retention.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import pg from 'pg';
import { hashApiKey } from '../../src/domain/api-key-secret.ts';
import type { WireWatchEvent } from '../../src/domain/sync-codec.ts';
import type { RunningControlPlane } from '../../src/entry/control-plane-app.ts';
import { workerSyncService, workerTokenMetadata } from '../../src/platform/grpc-contract.ts';
import { pruneChanges } from '../../src/services/sync/resource-changes.ts';
import { startStack, TEST_WORKER_TOKEN, type Stack } from '../support/stack.ts';

let stack: Stack;
const clients: grpc.Client[] = [];
const sql = <T = any>(q: string, p: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, p);

interface Watch {
  events: WireWatchEvent[];
  closed: Promise<grpc.ServiceError | null>;
  /** Waits (bounded) for an event matching `pred` among those received so far or later. */
  next(pred: (e: WireWatchEvent) => boolean, timeoutMs?: number): Promise<WireWatchEvent>;
  ack(version: number): void;
  end(): void;
}

/**
 * Opens a Watch stream once `cp`'s change feed has pushed everything committed so far, so the
 * stream gets no late live copy of an earlier change (harmless to a worker, but it would blur
 * what these tests look at).
 */
async function openWatch(
  cp: RunningControlPlane,
  sub: { since_version: number; held?: { type: string; key: string; version: number }[]; worker_id?: string },
  token = TEST_WORKER_TOKEN,
): Promise<Watch> {
  const [latest] = await sql<{ v: string | null }>('select max(version) as v from resource_change');
  const v = latest?.v ?? 0;
  const deadline = Date.now() + 3_000;
  while (cp.sync.feed.version < Number(v)) {
    if (Date.now() > deadline) throw new Error(`the change feed is at ${cp.sync.feed.version}, not ${v}`);
    await new Promise((r) => setTimeout(r, 5));
  }
  const Service = workerSyncService();
  const client = new Service(`127.0.0.1:${cp.grpcPort}`, grpc.credentials.createInsecure()) as any;
  clients.push(client);
  const call = client.Watch(workerTokenMetadata(token)) as grpc.ClientDuplexStream<any, WireWatchEvent>;
  const events: WireWatchEvent[] = [];
  const waiters: (() => void)[] = [];
  call.on('data', (e: WireWatchEvent) => {
    events.push(e);
    for (const w of waiters.splice(0)) w();
  });
  const closed = new Promise<grpc.ServiceError | null>((resolve) => {
    call.on('error', (err: grpc.ServiceError) => resolve(err));
    call.on('end', () => resolve(null));
  });
  call.write({ subscribe: { worker_id: sub.worker_id ?? 'test-worker', since_version: sub.since_version, held: sub.held ?? [] } });
  return {
    events,
    closed,
    async next(pred, timeoutMs = 3_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const hit = events.find(pred);
        if (hit) return hit;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no matching watch event within ${timeoutMs} ms; got ${JSON.stringify(events.map((e) => [e.version, e.action, e.resource_key.slice(0, 8)]))}`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
    },
    ack: (version) => call.write({ ack: { version } }),
    end: () => call.cancel(),
  };
}

async function newKey(): Promise<{ id: string; key: string; hash: string }> {
  const k = await stack.createKey({ name: 'w', workspace_id: 'ws-default', scopes: ['completions.write'] });
  return { ...k, hash: await hashApiKey(k.key) };
}

async function cp(base: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-gateway-api-key': stack.adminKey, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const lastChange = async (hash: string) => Number((await sql<{ v: string }>('select max(version) as v from resource_change where resource_key = ?', [hash]))[0]!.v);
const revision = async (id: string) => Number((await sql<{ revision: string }>('select revision from api_key where id = ?', [id]))[0]!.revision);

/** Waits until `cp` has caught the watcher up (its stream carries live changes from then on). */
async function caughtUp(c: RunningControlPlane, workerId: string) {
  const deadline = Date.now() + 3_000;
  while (!c.sync.watchers().some((w) => w.workerId === workerId && w.caughtUp)) {
    if (Date.now() > deadline) throw new Error(`watcher ${workerId} not caught up`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
});
afterAll(async () => {
  for (const c of clients) c.close();
  await stack?.close();
});

describe('WorkerSync.Watch', () => {
  it('a subscription from version 0 gets the history: one event per key, with the resolved key', async () => {
    const a = await newKey();
    const b = await newKey();
    const w = await openWatch(stack.controlPlane, { since_version: 0 });
    const ea = await w.next((e) => e.resource_key === a.hash);
    const eb = await w.next((e) => e.resource_key === b.hash);
    expect(ea).toMatchObject({ resource_type: 'api_key', action: 'upsert', version: await lastChange(a.hash) });
    expect(ea.key).toMatchObject({ found: true, version: await revision(a.id), key: { id: a.id, workspace_id: stack.workspaceId, scopes: ['completions.write'] } });
    expect(eb.version).toBeGreaterThan(ea.version);
    // Catch-up is in version order.
    const versions = w.events.map((e) => e.version);
    expect(versions).toEqual([...versions].sort((x, y) => x - y));
    w.end();
  });

  it('since_version replays only the changes after it', async () => {
    const a = await newKey();
    const since = await lastChange(a.hash);
    const b = await newKey();
    const w = await openWatch(stack.controlPlane, { since_version: since, worker_id: 'since' });
    await w.next((e) => e.resource_key === b.hash);
    await caughtUp(stack.controlPlane, 'since');
    expect(w.events.every((e) => e.version > since)).toBe(true);
    expect(w.events.some((e) => e.resource_key === a.hash)).toBe(false);
    w.end();
  });

  it('held resources that changed or are gone get an event; unchanged ones do not', async () => {
    const same = await newKey();
    const changed = await newKey();
    const gone = await newKey();
    const held = [
      { type: 'api_key', key: same.hash, version: await revision(same.id) },
      { type: 'api_key', key: changed.hash, version: await revision(changed.id) },
      { type: 'api_key', key: gone.hash, version: await revision(gone.id) },
    ];
    // Changes the worker misses while disconnected...
    expect((await cp(stack.controlPlane.httpUrl, 'PUT', `/v2/api-keys/${changed.id}`, { scopes: ['logs.list'] })).status).toBe(200);
    expect((await cp(stack.controlPlane.httpUrl, 'DELETE', `/v2/api-keys/${gone.id}`)).status).toBe(200);
    // ...and it resubscribes from the latest version: the log has nothing newer, its held versions tell.
    const now = await lastChange(gone.hash);
    const w = await openWatch(stack.controlPlane, { since_version: now, held, worker_id: 'held' });
    const c = await w.next((e) => e.resource_key === changed.hash);
    const g = await w.next((e) => e.resource_key === gone.hash);
    expect(c).toMatchObject({ version: 0, action: 'upsert' });
    expect(c.key).toMatchObject({ found: true, version: await revision(changed.id), key: { id: changed.id, scopes: ['logs.list'] } });
    expect(g).toMatchObject({ version: 0, action: 'delete', key: null });
    await caughtUp(stack.controlPlane, 'held');
    // A live change afterwards proves everything sent before it has arrived: nothing about `same`.
    const later = await newKey();
    await w.next((e) => e.resource_key === later.hash);
    expect(w.events.filter((e) => e.resource_key === same.hash)).toEqual([]);
    w.end();
  });

  it('pushes live changes: a revoked key is a delete, an update carries the key as it resolves now', async () => {
    const k = await newKey();
    const w = await openWatch(stack.controlPlane, { since_version: await lastChange(k.hash), worker_id: 'live' });
    await caughtUp(stack.controlPlane, 'live');
    expect((await cp(stack.controlPlane.httpUrl, 'PUT', `/v2/api-keys/${k.id}`, { scopes: ['logs.list'] })).status).toBe(200);
    const up = await w.next((e) => e.resource_key === k.hash && e.action === 'upsert');
    expect(up.key).toMatchObject({ found: true, key: { scopes: ['logs.list'] } });
    expect((await cp(stack.controlPlane.httpUrl, 'DELETE', `/v2/api-keys/${k.id}`)).status).toBe(200);
    const del = await w.next((e) => e.resource_key === k.hash && e.action === 'delete');
    expect(del.version).toBe(await lastChange(k.hash));
    expect(del.version).toBeGreaterThan(up.version);
    w.end();
  });

  it('rotation: the old hash stays an upsert during the transition, then a delete once it leaves the key', async () => {
    const k = await newKey();
    const w = await openWatch(stack.controlPlane, { since_version: await lastChange(k.hash), worker_id: 'rotate' });
    await caughtUp(stack.controlPlane, 'rotate');
    const first = await cp(stack.controlPlane.httpUrl, 'POST', `/v2/api-keys/${k.id}/rotate`, { key_transition_period_ms: 3_600_000 });
    expect(first.status).toBe(200);
    const h1 = await hashApiKey(first.body.key);
    expect((await w.next((e) => e.resource_key === k.hash)).action).toBe('upsert'); // still valid, as the previous secret
    expect((await w.next((e) => e.resource_key === h1)).action).toBe('upsert');
    const second = await cp(stack.controlPlane.httpUrl, 'POST', `/v2/api-keys/${k.id}/rotate`);
    expect(second.status).toBe(200);
    await w.next((e) => e.resource_key === k.hash && e.action === 'delete');
    w.end();
  });

  it('records the version a worker acknowledges, per stream', async () => {
    const k = await newKey();
    const v = await lastChange(k.hash);
    const w = await openWatch(stack.controlPlane, { since_version: v - 1, worker_id: 'acker' });
    await w.next((e) => e.version === v);
    w.ack(v);
    const deadline = Date.now() + 3_000;
    for (;;) {
      const mine = stack.controlPlane.sync.watchers().find((x) => x.workerId === 'acker');
      if (mine?.ackedVersion === v) {
        expect(mine).toMatchObject({ sinceVersion: v - 1, sentVersion: v });
        break;
      }
      if (Date.now() > deadline) throw new Error(`ack not recorded: ${JSON.stringify(mine)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    w.end();
    const gone = Date.now() + 3_000;
    while (stack.controlPlane.sync.watchers().some((x) => x.workerId === 'acker')) {
      if (Date.now() > gone) throw new Error('watcher still listed after the stream ended');
      await new Promise((r) => setTimeout(r, 10));
    }
  });

  it('refuses a wrong worker token', async () => {
    const w = await openWatch(stack.controlPlane, { since_version: 0, worker_id: 'intruder' }, 'wrong-token-wrong-token');
    expect((await w.closed)?.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(w.events).toEqual([]);
    expect(stack.controlPlane.sync.watchers().some((x) => x.workerId === 'intruder')).toBe(false);
  });

  it('fans out between replicas: a change made through one reaches watchers of the other, by NOTIFY or by the poll', async () => {
    const notified = await stack.startReplica();
    const polling = await stack.startReplica({ sync: { listen: false, pollIntervalMs: 100 } });
    expect(notified.sync.feed.isListening).toBe(true);
    const k = await newKey();
    const since = await lastChange(k.hash);
    const viaNotify = await openWatch(notified, { since_version: since, worker_id: 'replica-b' });
    const viaPoll = await openWatch(polling, { since_version: since, worker_id: 'replica-c' });
    await caughtUp(notified, 'replica-b');
    await caughtUp(polling, 'replica-c');
    expect((await cp(stack.controlPlane.httpUrl, 'DELETE', `/v2/api-keys/${k.id}`)).status).toBe(200);
    await viaNotify.next((e) => e.resource_key === k.hash && e.action === 'delete', 1_000);
    await viaPoll.next((e) => e.resource_key === k.hash && e.action === 'delete', 2_000);
    // A key deleted by cascade (its user deleted in SQL) is a delete too.
    const userId = crypto.randomUUID();
    await sql("insert into app_user (id, organisation_id, email, role) values (?, ?, 'cascade-watch@example.com', 'member')", [userId, stack.organisationId]);
    await sql("insert into workspace_member (id, workspace_id, user_id, role) values (?, ?, ?, 'member')", [crypto.randomUUID(), stack.workspaceId, userId]);
    const u = await stack.createKey({ name: 'u', workspace_id: 'ws-default', user_id: userId, scopes: ['completions.write'] }, 'user');
    const uHash = await hashApiKey(u.key);
    await viaNotify.next((e) => e.resource_key === uHash && e.action === 'upsert');
    await sql('delete from app_user where id = ?', [userId]);
    await viaNotify.next((e) => e.resource_key === uHash && e.action === 'delete', 1_000);
    await viaPoll.next((e) => e.resource_key === uHash && e.action === 'delete', 2_000);
    viaNotify.end();
    viaPoll.end();
  });

  it('a change that commits after a later-numbered one is still pushed (versions are drawn before commit)', async () => {
    const slow = await newKey();
    const fast = await newKey();
    const w = await openWatch(stack.controlPlane, { since_version: await lastChange(fast.hash), worker_id: 'order' });
    await caughtUp(stack.controlPlane, 'order');
    const tx = new pg.Client({ connectionString: stack.db.url });
    await tx.connect();
    try {
      await tx.query('begin');
      await tx.query("update api_key set name = 'slow' where id = $1", [slow.id]); // draws its version now
      const [{ v: slowVersion }] = (await tx.query('select max(version)::int as v from resource_change where resource_key = $1', [slow.hash])).rows;
      expect((await cp(stack.controlPlane.httpUrl, 'PUT', `/v2/api-keys/${fast.id}`, { name: 'fast' })).status).toBe(200);
      const f = await w.next((e) => e.resource_key === fast.hash);
      expect(f.version).toBeGreaterThan(slowVersion);
      await new Promise((r) => setTimeout(r, 50)); // a few reads of the feed while the slow one is open
      await tx.query('commit');
      const s = await w.next((e) => e.resource_key === slow.hash, 3_000);
      expect(s.version).toBe(slowVersion);
      expect(s.key).toMatchObject({ key: { id: slow.id } });
    } finally {
      await tx.end();
    }
    w.end();
  });

  it('reconnects its LISTEN connection when it drops, and catches up', async () => {
    const feed = stack.controlPlane.sync.feed;
    const before = feed.listenConnections;
    expect(feed.isListening).toBe(true);
    const k = await newKey();
    const w = await openWatch(stack.controlPlane, { since_version: await lastChange(k.hash), worker_id: 'relisten' });
    await caughtUp(stack.controlPlane, 'relisten');
    const killed = await sql<{ ok: boolean }>(
      "select pg_terminate_backend(pid) as ok from pg_stat_activity where datname = current_database() and query = 'LISTEN resource_change'",
    );
    expect(killed.length).toBeGreaterThan(0);
    const deadline = Date.now() + 5_000;
    while (feed.listenConnections === before) {
      if (Date.now() > deadline) throw new Error('the change feed did not reconnect');
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(feed.isListening).toBe(true);
    // Faster than the 2 s safety poll: the notification path works again.
    expect((await cp(stack.controlPlane.httpUrl, 'DELETE', `/v2/api-keys/${k.id}`)).status).toBe(200);
    await w.next((e) => e.resource_key === k.hash && e.action === 'delete', 1_000);
    w.end();
  });

  it('tells a worker further behind than the retention window to reset, then continues', async () => {
    const before = await newKey();
    const { horizon } = await pruneChanges(stack.db.orm.em.fork(), 0);
    expect(horizon).toBeGreaterThanOrEqual(await revision(before.id));
    const after = await newKey();
    const w = await openWatch(stack.controlPlane, { since_version: 1, worker_id: 'old' });
    const reset = await w.next((e) => e.action === 'reset');
    expect(w.events[0]).toBe(reset);
    expect(reset.version).toBe(horizon);
    await w.next((e) => e.resource_key === after.hash && e.action === 'upsert');
    w.end();
    // A worker that is up to date is not reset.
    const fresh = await openWatch(stack.controlPlane, { since_version: horizon, worker_id: 'fresh' });
    await fresh.next((e) => e.resource_key === after.hash);
    await caughtUp(stack.controlPlane, 'fresh');
    expect(fresh.events.some((e) => e.action === 'reset')).toBe(false);
    fresh.end();
  });
});
