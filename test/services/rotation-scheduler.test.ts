// Scheduled rotation: a control-plane job that marks keys whose next_rotation_at has passed as
// due (the current secret keeps working until the key is rotated), exactly once even with
// several control-plane replicas.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { MikroORM } from '@mikro-orm/postgresql';
import { silentLogger } from '../../src/domain/logger.ts';
import { startControlPlane } from '../../src/entry/control-plane-app.ts';
import { openOrm } from '../../src/persistence/orm.ts';
import { runScheduledRotations, startRotationScheduler, type ScheduledRotation } from '../../src/services/api-keys/rotation-scheduler.ts';
import { startStack, TEST_WORKER_TOKEN, type Stack } from '../support/stack.ts';

let stack: Stack;
let base: string;
let replica: MikroORM; // a second control-plane replica's connection pool
const sql = <T = any>(q: string, params: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, params);
const DAY = 86_400_000;

async function call(method: string, path: string, key: string = stack.adminKey, body?: unknown) {
  const headers: Record<string, string> = { 'x-gateway-api-key': key };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
}
const row = async (id: string) => (await sql('select * from api_key where id = ?', [id]))[0];
const rotateEvents = (id: string) => sql("select * from audit_event where target_id = ? and action = 'api_key.rotate' order by created_at", [id]);

/** A key with a weekly policy whose next rotation is already past. */
async function dueKey(extra: Record<string, unknown> = {}, pastMs = 60_000) {
  const k = await stack.createKey({
    name: 'rotating',
    workspace_id: 'ws-default',
    scopes: ['workspace_service_api_keys.read', 'workspace_service_api_keys.update'],
    rotation_policy: { rotation_period: 'weekly' },
    ...extra,
  });
  await sql(`update api_key set rotation_policy = jsonb_set(rotation_policy, '{next_rotation_at}', to_jsonb(?::text)) where id = ?`, [new Date(Date.now() - pastMs).toISOString(), k.id]);
  return k;
}

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  base = stack.controlPlane.httpUrl;
  replica = await openOrm({ databaseUrl: stack.db.url, poolMax: 5 });
});
afterAll(async () => {
  await replica?.close(true);
  await stack?.close();
});

describe('scheduled rotation', () => {
  it('marks a due key as rotation_due with one system api_key.rotate event; the secret is unchanged and keeps working', async () => {
    const k = await dueKey();
    const before = await row(k.id);
    const marked = await runScheduledRotations(stack.db.orm);
    expect(marked.map((m) => m.id)).toContain(k.id);

    const after = await row(k.id);
    expect(after.key_hash).toBe(before.key_hash);
    expect(after.previous_key_hash).toBeNull();
    expect(Number(after.revision)).toBeGreaterThan(Number(before.revision));
    const view = (await call('GET', `/v2/api-keys/${k.id}`)).body;
    expect(view.rotation_due).toBe(true);
    expect(Math.abs(Date.parse(view.rotation_due_at) - Date.now())).toBeLessThan(60_000);
    expect(view.rotation_policy).not.toHaveProperty('rotation_due_at'); // not a request field
    expect((await call('GET', `/v2/api-keys/${k.id}`, k.key)).status).toBe(200);

    const evs = await rotateEvents(k.id);
    expect(evs).toHaveLength(1);
    expect(evs[0]).toMatchObject({ actor_type: 'system', actor_id: null, user_id: null, organisation_id: stack.organisationId, workspace_id: stack.workspaceId, target_type: 'api_key' });
    expect(evs[0].request_details).toMatchObject({ scheduled: true, secret_rotated: false, rotation_due_at: view.rotation_due_at });

    // Already due: later passes leave it alone.
    expect((await runScheduledRotations(stack.db.orm)).map((m) => m.id)).not.toContain(k.id);
    expect(await rotateEvents(k.id)).toHaveLength(1);

    const g = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': stack.adminKey },
      body: JSON.stringify({ query: 'query($id: ID!) { apiKey(id: $id) { rotation_due rotation_due_at } }', variables: { id: k.id } }),
    });
    expect(((await g.json()) as any).data.apiKey).toEqual({ rotation_due: true, rotation_due_at: view.rotation_due_at });
  });

  it('leaves keys that are not due, deleted or expired', async () => {
    const future = await stack.createKey({ name: 'later', workspace_id: 'ws-default', scopes: ['completions.write'], rotation_policy: { rotation_period: 'monthly' } });
    const deleted = await dueKey();
    await call('DELETE', `/v2/api-keys/${deleted.id}`);
    const expired = await dueKey();
    await sql("update api_key set expires_at = now() - interval '1 minute' where id = ?", [expired.id]);
    const none = await stack.createKey({ name: 'no-policy', workspace_id: 'ws-default', scopes: ['completions.write'] });
    const marked = (await runScheduledRotations(stack.db.orm)).map((m) => m.id);
    for (const k of [future, deleted, expired, none]) {
      expect(marked).not.toContain(k.id);
      expect(await rotateEvents(k.id)).toHaveLength(0);
    }
  });

  it('the next manual rotation issues the secret, clears the mark and schedules the next rotation', async () => {
    const k = await dueKey();
    await runScheduledRotations(stack.db.orm);
    const r = await call('POST', `/v2/api-keys/${k.id}/rotate`, k.key);
    expect(r.status).toBe(200);
    const view = (await call('GET', `/v2/api-keys/${k.id}`)).body;
    expect(view.rotation_due).toBe(false);
    expect(view.rotation_due_at).toBeNull();
    expect(Math.abs(Date.parse(view.rotation_policy.next_rotation_at) - (Date.now() + 7 * DAY))).toBeLessThan(60_000);
    const evs = await rotateEvents(k.id);
    expect(evs.map((e: any) => e.request_details.scheduled)).toEqual([true, false]);
    expect(evs[1].request_details.rotation_was_due_at).toBeTruthy();
    // An update that restates the policy does not clear a due rotation.
    const due2 = await dueKey();
    await runScheduledRotations(stack.db.orm);
    await call('PUT', `/v2/api-keys/${due2.id}`, stack.adminKey, { rotation_policy: { rotation_period: 'weekly' } });
    expect((await call('GET', `/v2/api-keys/${due2.id}`)).body.rotation_due).toBe(true);
  });

  it('two schedulers racing over the same due keys handle each key exactly once', async () => {
    const keys: { id: string; key: string }[] = [];
    for (let i = 0; i < 12; i++) keys.push(await dueKey());
    const a = startRotationScheduler(stack.db.orm, { intervalMs: 3_600_000, batchSize: 2 });
    const b = startRotationScheduler(replica, { intervalMs: 3_600_000, batchSize: 2 });
    try {
      const [ra, rb] = await Promise.all([a.runOnce(), b.runOnce()]);
      const ids = [...ra, ...rb].map((m) => m.id).filter((id) => keys.some((k) => k.id === id));
      expect(ids.sort()).toEqual(keys.map((k) => k.id).sort()); // every key once, none twice
      for (const k of keys) expect(await rotateEvents(k.id)).toHaveLength(1);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('runs on its interval until stopped', async () => {
    const k = await dueKey();
    let resolve!: (m: ScheduledRotation[]) => void;
    const passed = new Promise<ScheduledRotation[]>((r) => (resolve = r));
    const s = startRotationScheduler(stack.db.orm, { intervalMs: 20, onPass: resolve });
    const marked = await passed;
    await s.stop();
    expect(marked.map((m) => m.id)).toContain(k.id);
    const later = await dueKey();
    await new Promise((r) => setTimeout(r, 150)); // several intervals: a stopped job marks nothing
    expect(await rotateEvents(later.id)).toHaveLength(0);
    await runScheduledRotations(stack.db.orm); // leave nothing due for the next test
  });

  it('is started by the control plane and stopped with it', async () => {
    const cp = await startControlPlane({ orm: replica, host: '127.0.0.1', httpPort: 0, grpcPort: 0, workerToken: TEST_WORKER_TOKEN, logger: silentLogger, rotationIntervalMs: 20 });
    try {
      const k = await dueKey();
      let events: unknown[] = [];
      for (let i = 0; i < 100 && !events.length; i++) {
        events = await rotateEvents(k.id);
        if (!events.length) await new Promise((r) => setTimeout(r, 20));
      }
      expect(events).toHaveLength(1);
    } finally {
      await cp.close();
    }
  });
});
