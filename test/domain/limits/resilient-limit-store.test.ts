// Redis trouble (issue 8 item 6): fail-open falls back to per-worker counters, fail-closed
// refuses with 503, health says so, and the shared store is used again once it answers.
import { describe, it, expect, afterAll } from 'vitest';
import { Redis } from 'ioredis';
import { AppError } from '../../../src/domain/errors.ts';
import type { LimitCheck, LimitStore } from '../../../src/domain/limits/limit-store.ts';
import { ResilientLimitStore } from '../../../src/domain/limits/resilient-limit-store.ts';
import { RedisLimitStore } from '../../../src/platform/redis-limit-store.ts';

// Nothing listens on port 1: every command fails fast (no offline queue).
const dead = new Redis('redis://127.0.0.1:1', { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true });
dead.on('error', () => {});
afterAll(() => dead.disconnect());

const check: LimitCheck = { key: 'rl:{x}:requests:rpm', kind: 'rate', measure: 'requests', limit: 2, windowMs: 60_000, amount: 1 };

function flaky() {
  let down = true;
  const inner: LimitStore = {
    kind: 'redis',
    take: async (c) => {
      if (down) throw new Error('ECONNREFUSED');
      return c.map(() => ({ allowed: true, remaining: 9, resetMs: 1, retryAfterMs: 0, alert: false }));
    },
    adjust: async () => {},
    close: async () => {},
  };
  return { inner, up: () => (down = false) };
}

describe('ResilientLimitStore', () => {
  it('fails open onto per-worker counters that still enforce the limit, and says so', async () => {
    const changes: boolean[] = [];
    const store = new ResilientLimitStore(new RedisLimitStore(dead), 'open', (h) => changes.push(h.shared));
    const verdicts = [];
    for (let i = 0; i < 3; i++) verdicts.push((await store.take([check]))[0]!.allowed);
    expect(verdicts).toEqual([true, true, false]);
    expect(store.health()).toMatchObject({ mode: 'open', shared: false });
    expect(store.health().degradedSince).toBeTypeOf('number');
    expect(changes).toEqual([false]);
  });

  it('fails closed with a 503 naming the cause', async () => {
    const store = new ResilientLimitStore(new RedisLimitStore(dead), 'closed');
    const err = (await store.take([check]).catch((e: unknown) => e)) as AppError;
    expect(err).toBeInstanceOf(AppError);
    expect([err.status, err.code]).toEqual([503, 'rate_limiter_unavailable']);
    expect(store.health().shared).toBe(false);
  });

  it('returns to the shared store when it answers again', async () => {
    const f = flaky();
    const store = new ResilientLimitStore(f.inner, 'open');
    await store.take([check]);
    expect(store.health().shared).toBe(false);
    f.up();
    expect((await store.take([check]))[0]!.remaining).toBe(9);
    expect(store.health()).toEqual({ mode: 'open', shared: true, degradedSince: null });
  });
});
