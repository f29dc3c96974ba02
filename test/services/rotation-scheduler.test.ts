// Scheduled rotation: a control-plane job that rotates keys whose next_rotation_at has passed —
// a new secret, kept sealed until its owner claims it once, the old one valid for the transition
// period and never after — exactly once even with several control-plane replicas.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { MikroORM } from '@mikro-orm/postgresql';
import { hashApiKey } from '../../src/domain/api-key-secret.ts';
import { silentLogger } from '../../src/domain/logger.ts';
import { startControlPlane } from '../../src/entry/control-plane-app.ts';
import { openOrm } from '../../src/persistence/orm.ts';
import { pendingSecretContext } from '../../src/services/api-keys/rotate-api-key.ts';
import { runScheduledRotations, startRotationScheduler, type ScheduledRotation } from '../../src/services/api-keys/rotation-scheduler.ts';
import { startStack, TEST_WORKER_TOKEN, type Stack } from '../support/stack.ts';

let stack: Stack;
let base: string;
let replica: MikroORM; // a second control-plane replica's connection pool
const sql = <T = any>(q: string, params: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, params);
const HOUR = 3_600_000;
const DAY = 86_400_000;
const near = (at: string | Date | null | undefined, expected: number, tolerance = 60_000) => {
  expect(at).toBeTruthy();
  expect(Math.abs(new Date(at!).getTime() - expected)).toBeLessThan(tolerance);
};

async function call(method: string, path: string, key: string = stack.adminKey, body?: unknown) {
  const headers: Record<string, string> = { 'x-gateway-api-key': key };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
}
async function gql(query: string, variables: unknown = {}, key: string = stack.adminKey) {
  const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-gateway-api-key': key }, body: JSON.stringify({ query, variables }) });
  return (await res.json()) as any;
}
const row = async (id: string) => (await sql('select * from api_key where id = ?', [id]))[0];
const rotateEvents = (id: string) => sql("select * from audit_event where target_id = ? and action = 'api_key.rotate' order by created_at", [id]);
const claimEvents = (id: string) => sql("select * from audit_event where target_id = ? and action = 'api_key.claim_rotated_secret' order by created_at", [id]);
const rotate = (orm: MikroORM = stack.db.orm) => runScheduledRotations(orm, stack.secretBox);
const setNextRotation = (id: string, at: Date) =>
  sql(`update api_key set rotation_policy = jsonb_set(rotation_policy, '{next_rotation_at}', to_jsonb(?::text)) where id = ?`, [at.toISOString(), id]);

/** A key (which may read and update itself) with a weekly policy whose next rotation is already past. */
async function dueKey(extra: Record<string, unknown> = {}, pastMs = 60_000) {
  const k = await stack.createKey({
    name: 'rotating',
    workspace_id: 'ws-default',
    scopes: ['workspace_service_api_keys.read', 'workspace_service_api_keys.update'],
    rotation_policy: { rotation_period: 'weekly' },
    ...extra,
  });
  await setNextRotation(k.id, new Date(Date.now() - pastMs));
  return k;
}

beforeAll(async () => {
  // The stack's own job is off: each test runs passes itself (and one test starts a control plane that runs it).
  stack = await startStack({ workers: 0, rotationIntervalMs: 0 });
  base = stack.controlPlane.httpUrl;
  replica = await openOrm({ databaseUrl: stack.db.url, poolMax: 5 });
});
afterAll(async () => {
  await replica?.close(true);
  await stack?.close();
});

describe('scheduled rotation', () => {
  it('rotates a due key: a new secret sealed for its owner, the old one valid until the transition ends, one system api_key.rotate event', async () => {
    const k = await dueKey();
    const before = await row(k.id);
    const scheduledFor = before.rotation_policy.next_rotation_at;
    const rotated = await rotate();
    const mine = rotated.find((m) => m.id === k.id);
    expect(mine).toMatchObject({ id: k.id, organisationId: stack.organisationId, scheduledFor });

    const after = await row(k.id);
    expect(after.key_hash).not.toBe(before.key_hash);
    expect(after.previous_key_hash).toBe(before.key_hash);
    near(after.previous_key_expires_at, Date.now() + DAY); // no transition in the policy: the manual default
    expect(new Date(after.previous_key_expires_at).toISOString()).toBe(mine!.keyTransitionExpiresAt);
    near(after.last_rotated_at, Date.now());
    near(after.rotation_policy.next_rotation_at, Date.now() + 7 * DAY); // one period on
    expect(after.rotation_policy).toEqual({ rotation_period: 'weekly', next_rotation_at: after.rotation_policy.next_rotation_at });
    expect(after.pending_key_ciphertext).toMatch(/^v1\./);
    expect(after.pending_key_mask).toBe(after.key_mask);
    expect(after.key_mask).not.toBe(before.key_mask);
    near(after.pending_key_created_at, Date.now());
    expect(Number(after.revision)).toBeGreaterThan(Number(before.revision));

    // The old secret keeps working during the transition.
    const view = await call('GET', `/v2/api-keys/${k.id}`, k.key);
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({ rotation_pending: true, pending_key_created_at: new Date(after.pending_key_created_at).toISOString(), key: after.key_mask });
    near(view.body.last_rotated_at, Date.now());
    expect(view.body.rotation_policy).toEqual(after.rotation_policy);
    expect(view.body).not.toHaveProperty('rotation_due');
    const g = await gql('query($id: ID!) { apiKey(id: $id) { rotation_pending pending_key_created_at } }', { id: k.id });
    expect(g.data.apiKey).toEqual({ rotation_pending: true, pending_key_created_at: view.body.pending_key_created_at });

    const evs = await rotateEvents(k.id);
    expect(evs).toHaveLength(1);
    expect(evs[0]).toMatchObject({ actor_type: 'system', actor_id: null, user_id: null, organisation_id: stack.organisationId, workspace_id: stack.workspaceId, target_type: 'api_key' });
    expect(evs[0].request_details).toMatchObject({
      scheduled: true,
      scheduled_for: scheduledFor,
      key_transition_period_ms: DAY,
      key_transition_expires_at: mine!.keyTransitionExpiresAt,
      next_rotation_at: after.rotation_policy.next_rotation_at,
      unclaimed_secret_discarded: false,
    });

    // No longer due: later passes leave it alone.
    expect((await rotate()).map((m) => m.id)).not.toContain(k.id);
    expect(await rotateEvents(k.id)).toHaveLength(1);
    expect((await row(k.id)).key_hash).toBe(after.key_hash);

    // The key claims its new secret with its old one, once.
    const claimed = await call('POST', `/v2/api-keys/${k.id}/rotation/claim`, k.key);
    expect(claimed.status).toBe(200);
    expect(claimed.body).toEqual({
      id: k.id,
      key: expect.stringMatching(/^[A-Za-z0-9]{48}$/),
      rotated_at: view.body.pending_key_created_at,
      key_transition_expires_at: mine!.keyTransitionExpiresAt,
    });
    expect(await hashApiKey(claimed.body.key)).toBe(after.key_hash);
    // What was stored is not the secret, and it opens (only) with the control plane's box for this key.
    expect(after.pending_key_ciphertext).not.toContain(claimed.body.key);
    expect(stack.secretBox.open(after.pending_key_ciphertext, pendingSecretContext(k.id))).toBe(claimed.body.key);
    expect(() => stack.secretBox.open(after.pending_key_ciphertext, pendingSecretContext(crypto.randomUUID()))).toThrow();
    for (const ev of [...(await rotateEvents(k.id)), ...(await claimEvents(k.id))]) {
      expect(JSON.stringify(ev)).not.toContain(claimed.body.key);
      expect(JSON.stringify(ev)).not.toContain(after.pending_key_ciphertext.split('.')[3]);
    }

    const cleared = await row(k.id);
    expect(cleared).toMatchObject({ pending_key_ciphertext: null, pending_key_mask: null, pending_key_created_at: null, key_hash: after.key_hash, previous_key_hash: before.key_hash });
    expect((await call('GET', `/v2/api-keys/${k.id}`, claimed.body.key)).body).toMatchObject({ rotation_pending: false, pending_key_created_at: null });
    const again = await call('POST', `/v2/api-keys/${k.id}/rotation/claim`, k.key);
    expect(again.status).toBe(404);
    expect(again.body.error).toMatchObject({ type: 'not_found_error', code: 'no_pending_secret', param: 'id' });
    expect(await claimEvents(k.id)).toHaveLength(1);

    // Once the transition has ended the old secret never works again; the claimed one does.
    await sql("update api_key set previous_key_expires_at = now() - interval '1 second' where id = ?", [k.id]);
    expect((await call('GET', `/v2/api-keys/${k.id}`, k.key)).status).toBe(401);
    expect((await call('GET', `/v2/api-keys/${k.id}`, claimed.body.key)).status).toBe(200);
  });

  it("uses the policy's key_transition_period_ms and period", async () => {
    const k = await dueKey({ rotation_policy: { rotation_period_days: 3, key_transition_period_ms: 2 * HOUR } });
    await rotate();
    const after = await row(k.id);
    near(after.previous_key_expires_at, Date.now() + 2 * HOUR);
    near(after.rotation_policy.next_rotation_at, Date.now() + 3 * DAY);
    expect(after.rotation_policy).toMatchObject({ rotation_period_days: 3, key_transition_period_ms: 2 * HOUR });
    expect((await rotateEvents(k.id))[0].request_details.key_transition_period_ms).toBe(2 * HOUR);
  });

  it('leaves keys that are not due, deleted or expired', async () => {
    const future = await stack.createKey({ name: 'later', workspace_id: 'ws-default', scopes: ['completions.write'], rotation_policy: { rotation_period: 'monthly' } });
    const deleted = await dueKey();
    await call('DELETE', `/v2/api-keys/${deleted.id}`);
    const expired = await dueKey();
    await sql("update api_key set expires_at = now() - interval '1 minute' where id = ?", [expired.id]);
    const none = await stack.createKey({ name: 'no-policy', workspace_id: 'ws-default', scopes: ['completions.write'] });
    const before = await Promise.all([future, deleted, expired, none].map((k) => row(k.id)));
    const rotated = (await rotate()).map((m) => m.id);
    for (const [i, k] of [future, deleted, expired, none].entries()) {
      expect(rotated).not.toContain(k.id);
      expect(await rotateEvents(k.id)).toHaveLength(0);
      expect(await row(k.id)).toEqual(before[i]);
    }
  });

  it('a manual rotation discards an unclaimed secret; an update keeps it; a second scheduled rotation replaces it', async () => {
    const k = await dueKey();
    await rotate();
    const scheduledHash = (await row(k.id)).key_hash;
    const r = await call('POST', `/v2/api-keys/${k.id}/rotate`, k.key);
    expect(r.status).toBe(200);
    const after = await row(k.id);
    expect(after).toMatchObject({ pending_key_ciphertext: null, pending_key_mask: null, pending_key_created_at: null, previous_key_hash: scheduledHash });
    const view = (await call('GET', `/v2/api-keys/${k.id}`)).body;
    expect(view).toMatchObject({ rotation_pending: false, pending_key_created_at: null });
    near(view.rotation_policy.next_rotation_at, Date.now() + 7 * DAY);
    const evs = await rotateEvents(k.id);
    expect(evs.map((e: any) => e.request_details.scheduled)).toEqual([true, false]);
    expect(evs[1].request_details.unclaimed_secret_discarded).toBe(true);
    expect((await call('POST', `/v2/api-keys/${k.id}/rotation/claim`)).body.error.code).toBe('no_pending_secret');
    expect((await call('GET', `/v2/api-keys/${k.id}`, k.key)).status).toBe(401); // the original: ended by the second rotation
    expect((await call('GET', `/v2/api-keys/${k.id}`, r.body.key)).status).toBe(200);

    // An update that restates the policy keeps a waiting secret.
    const due2 = await dueKey();
    await rotate();
    await call('PUT', `/v2/api-keys/${due2.id}`, stack.adminKey, { rotation_policy: { rotation_period: 'weekly' } });
    expect((await call('GET', `/v2/api-keys/${due2.id}`)).body.rotation_pending).toBe(true);

    // Due again before anyone claimed: the newer secret replaces the waiting one.
    const first = await row(due2.id);
    await setNextRotation(due2.id, new Date(Date.now() - 1000));
    await rotate();
    const second = await row(due2.id);
    expect(second.previous_key_hash).toBe(first.key_hash);
    expect(second.pending_key_ciphertext).not.toBe(first.pending_key_ciphertext);
    expect((await rotateEvents(due2.id)).at(-1).request_details).toMatchObject({ scheduled: true, unclaimed_secret_discarded: true, older_previous_secret_ended: true });
    const claimed = await call('POST', `/v1/api-keys/${due2.id}/rotation/claim`);
    expect(await hashApiKey(claimed.body.key)).toBe(second.key_hash);
  });

  it('two schedulers racing over the same due keys rotate each key exactly once', async () => {
    const keys: { id: string; key: string }[] = [];
    for (let i = 0; i < 12; i++) keys.push(await dueKey());
    const original = new Map(await Promise.all(keys.map(async (k) => [k.id, (await row(k.id)).key_hash] as const)));
    const a = startRotationScheduler(stack.db.orm, stack.secretBox, { intervalMs: 3_600_000, batchSize: 2 });
    const b = startRotationScheduler(replica, stack.secretBox, { intervalMs: 3_600_000, batchSize: 2 });
    try {
      const [ra, rb] = await Promise.all([a.runOnce(), b.runOnce()]);
      const ids = [...ra, ...rb].map((m) => m.id).filter((id) => keys.some((k) => k.id === id));
      expect(ids.sort()).toEqual(keys.map((k) => k.id).sort()); // every key once, none twice
      for (const k of keys) {
        expect(await rotateEvents(k.id)).toHaveLength(1);
        const r = await row(k.id);
        expect(r.previous_key_hash).toBe(original.get(k.id)); // rotated twice would have ended the original at once
        const secret = stack.secretBox.open(r.pending_key_ciphertext, pendingSecretContext(k.id));
        expect(await hashApiKey(secret)).toBe(r.key_hash);
        expect((await call('GET', `/v2/api-keys/${k.id}`, k.key)).status).toBe(200);
      }
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('runs on its interval until stopped', async () => {
    const k = await dueKey();
    let resolve!: (m: ScheduledRotation[]) => void;
    const passed = new Promise<ScheduledRotation[]>((r) => (resolve = r));
    const s = startRotationScheduler(stack.db.orm, stack.secretBox, { intervalMs: 20, onPass: resolve });
    const rotated = await passed;
    await s.stop();
    expect(rotated.map((m) => m.id)).toContain(k.id);
    const later = await dueKey();
    await new Promise((r) => setTimeout(r, 150)); // several intervals: a stopped job rotates nothing
    expect(await rotateEvents(later.id)).toHaveLength(0);
    await rotate(); // leave nothing due for the next test
  });

  it('is started by the control plane and stopped with it', async () => {
    const cp = await startControlPlane({ orm: replica, host: '127.0.0.1', httpPort: 0, grpcPort: 0, workerToken: TEST_WORKER_TOKEN, logger: silentLogger, rotationIntervalMs: 20, secretBox: stack.secretBox });
    try {
      const k = await dueKey();
      let events: unknown[] = [];
      for (let i = 0; i < 100 && !events.length; i++) {
        events = await rotateEvents(k.id);
        if (!events.length) await new Promise((r) => setTimeout(r, 20));
      }
      expect(events).toHaveLength(1);
      // Its secret is claimable through that control plane too.
      const res = await fetch(`${cp.httpUrl}/v2/api-keys/${k.id}/rotation/claim`, { method: 'POST', headers: { 'x-gateway-api-key': k.key } });
      expect(res.status).toBe(200);
      expect(await hashApiKey(((await res.json()) as any).key)).toBe((await row(k.id)).key_hash);
    } finally {
      await cp.close();
    }
  });
});
