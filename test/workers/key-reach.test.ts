// Keys reach the workers (issue 3, item 6): a deleted, expired or rotated-out key stops working
// on the data plane within the worker's key-cache TTL, and a new key works at once.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startMockProvider, type MockProvider } from '../support/mock-provider.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { chatThrough, type ChatOutcome } from '../support/chat.ts';

const TTL_MS = 300;
const BOUND_MS = 3_000;

let stack: Stack;
let mock: MockProvider;
let worker: string;
const sql = <T = any>(q: string, p: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, p);

const chat = (key: string): Promise<ChatOutcome> => chatThrough(worker, key, mock.baseUrl);

/** Polls until the worker answers `status` for the key; returns how long it took. Bounded. */
async function until(key: string, status: number): Promise<{ elapsed: number; code: string | null }> {
  const start = Date.now();
  for (;;) {
    const r = await chat(key);
    if (r.status === status) return { elapsed: Date.now() - start, code: r.code };
    if (Date.now() - start > BOUND_MS) throw new Error(`still ${r.status} (${r.code}) after ${BOUND_MS} ms, expected ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function cp(method: string, path: string, body?: unknown) {
  const res = await fetch(`${stack.controlPlane.httpUrl}${path}`, {
    method,
    headers: { 'x-gateway-api-key': stack.adminKey, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}
const newKey = () => stack.createKey({ name: 'app', workspace_id: 'ws-default', scopes: ['completions.write'] });

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  mock = await startMockProvider();
  mock.program({ persist: true });
  worker = (await stack.startWorker({ keyCacheTtlMs: TTL_MS })).url;
});
afterAll(async () => {
  await mock?.close();
  await stack?.close();
});

describe('keys reach the workers', () => {
  it('a new key works at once', async () => {
    const k = await newKey();
    expect((await chat(k.key)).status).toBe(200);
  });

  it('a deleted key is refused within the cache TTL', async () => {
    const k = await newKey();
    expect((await chat(k.key)).status).toBe(200); // cached by the worker now
    expect((await cp('DELETE', `/v2/api-keys/${k.id}`)).status).toBe(200);
    const r = await until(k.key, 401);
    expect(r.code).toBe('invalid_api_key');
    expect(r.elapsed).toBeLessThan(TTL_MS + 1_000);
  });

  it('an expired key is refused within the cache TTL', async () => {
    const k = await newKey();
    expect((await chat(k.key)).status).toBe(200);
    await sql("update api_key set expires_at = now() + interval '400 milliseconds' where id = ?", [k.id]);
    const r = await until(k.key, 401);
    expect(r.code).toBe('api_key_expired');
  });

  it('rotation: the new secret works at once, the old one during the transition, then never again', async () => {
    const k = await newKey();
    expect((await chat(k.key)).status).toBe(200);
    const rotated = await cp('POST', `/v2/api-keys/${k.id}/rotate`, { key_transition_period_ms: 3_600_000 });
    expect(rotated.status).toBe(200);
    expect((await chat(rotated.body.key)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, TTL_MS + 100)); // past the TTL: the worker asks again
    expect((await chat(k.key)).status).toBe(200);

    await sql("update api_key set previous_key_expires_at = now() - interval '1 second' where id = ?", [k.id]);
    const r = await until(k.key, 401);
    expect(r.elapsed).toBeLessThan(TTL_MS + 1_000);
    expect((await chat(rotated.body.key)).status).toBe(200);
  });

  it('a second rotation ends the oldest secret within the TTL; the previous one keeps working', async () => {
    const k = await newKey();
    const first = (await cp('POST', `/v2/api-keys/${k.id}/rotate`)).body.key as string;
    expect((await chat(k.key)).status).toBe(200);
    expect((await chat(first)).status).toBe(200);
    const second = (await cp('POST', `/v2/api-keys/${k.id}/rotate`)).body.key as string;
    expect((await chat(second)).status).toBe(200);
    await until(k.key, 401);
    expect((await chat(first)).status).toBe(200);
  });

  it('scope changes, exhaustion and reset_usage reach the worker within the TTL', async () => {
    const k = await newKey();
    expect((await chat(k.key)).status).toBe(200);
    await cp('PUT', `/v2/api-keys/${k.id}`, { scopes: ['logs.list'] });
    expect((await until(k.key, 403)).code).toBe('missing_scope');
    await cp('PUT', `/v2/api-keys/${k.id}`, { scopes: ['completions.write'], usage_limits: { credit_limit: 10, type: 'tokens' } });
    await until(k.key, 200);
    await sql("update api_key set status = 'exhausted' where id = ?", [k.id]);
    expect((await until(k.key, 429)).code).toBe('usage_limit_exceeded');
    expect((await cp('PUT', `/v2/api-keys/${k.id}`, { reset_usage: true })).status).toBe(200);
    await until(k.key, 200);
  });
});
