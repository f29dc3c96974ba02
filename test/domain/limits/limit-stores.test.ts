// The same counter rules on both stores: the in-process one (embedded default, fail-open
// fallback) and the Redis Lua script shared by every worker (issue 8 items 1, 3, 5).
import { describe, it, expect, afterAll } from 'vitest';
import { Redis } from 'ioredis';
import { hashTagOf, type LimitCheck, type LimitStore } from '../../../src/domain/limits/limit-store.ts';
import { MemoryLimitStore } from '../../../src/domain/limits/memory-limit-store.ts';
import { RedisLimitStore } from '../../../src/platform/redis-limit-store.ts';
import { TEST_REDIS_URL } from '../../support/db.ts';

const clients: Redis[] = [];
const prefix = `gwtest:limits:${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}:`;
function redisStore(): RedisLimitStore {
  const c = new Redis(TEST_REDIS_URL, { keyPrefix: prefix });
  clients.push(c);
  return new RedisLimitStore(c);
}
afterAll(async () => {
  const c = clients[0];
  if (c) {
    const keys = await c.keys(`${prefix}*`);
    if (keys.length) await c.del(...keys.map((k) => k.slice(prefix.length)));
  }
  for (const c of clients) c.disconnect();
});

let n = 0;
const uniq = (name: string) => `${name}:{t${++n}}`;
const rate = (key: string, limit: number, windowMs: number, amount = 1): LimitCheck => ({ key, kind: 'rate', measure: 'requests', limit, windowMs, amount });
const budget = (key: string, limit: number, amount: number, alertAt?: number): LimitCheck => ({
  key,
  kind: 'budget',
  measure: 'cost',
  limit,
  amount,
  periodEndMs: Date.now() + 3_600_000,
  ...(alertAt !== undefined ? { alertAt } : {}),
});

describe.each([
  ['memory', () => new MemoryLimitStore() as LimitStore],
  ['redis', () => redisStore() as LimitStore],
])('%s limit store', (_name, make) => {
  it('admits a request limit up to its capacity, then refuses with the time until one more fits', async () => {
    const s = make();
    const c = rate(uniq('rl'), 3, 60_000);
    const verdicts = [];
    for (let i = 0; i < 4; i++) verdicts.push((await s.take([c]))[0]!);
    expect(verdicts.map((v) => v.allowed)).toEqual([true, true, true, false]);
    expect(verdicts.map((v) => v.remaining)).toEqual([2, 1, 0, 0]);
    // Sliding window: room for one more once a third of this window's 3 has faded in the next
    // window, i.e. 20 s after this window ends.
    expect(verdicts[3]!.retryAfterMs).toBeGreaterThan(20_000);
    expect(verdicts[3]!.retryAfterMs).toBeLessThanOrEqual(80_000);
    expect(verdicts[2]!.resetMs).toBeGreaterThan(60_000);
  });

  it('refuses everything at a limit of 0', async () => {
    const s = make();
    const [v] = await s.take([rate(uniq('zero'), 0, 1_000)]);
    expect(v!.allowed).toBe(false);
    expect(v!.retryAfterMs).toBe(1_000);
  });

  it('takes from every counter only when all allow', async () => {
    const s = make();
    const tag = `{all${++n}}`;
    const roomy = rate(`a:${tag}`, 10, 60_000);
    const tight = rate(`b:${tag}`, 1, 60_000);
    expect((await s.take([roomy, tight])).every((v) => v.allowed)).toBe(true);
    const refused = await s.take([roomy, tight]);
    expect(refused.map((v) => v.allowed)).toEqual([true, false]);
    // The refused request took nothing from the roomy counter: 10 - 1 = 9 left, so 8 after the next.
    const [alone] = await s.take([roomy]);
    expect(alone!.remaining).toBe(8);
  });

  it('caps a token reservation at the bucket and settles to the real count, keeping debt', async () => {
    const s = make();
    const c = rate(uniq('tok'), 1_000, 60_000, 5_000);
    const [first] = await s.take([c]);
    expect(first!.allowed).toBe(true);
    expect(first!.remaining).toBe(0);
    // Reserved 1 000 (capped), used 300: 700 come back.
    await s.adjust([{ check: c, delta: -700 }]);
    const [next] = await s.take([{ ...c, amount: 600 }]);
    expect(next!.allowed).toBe(true);
    expect(next!.remaining).toBeGreaterThanOrEqual(100);
    expect(next!.remaining).toBeLessThan(110);
    // Used 2 000 more than reserved: the bucket owes, the next request waits.
    await s.adjust([{ check: c, delta: 2_000 }]);
    const [owed] = await s.take([{ ...c, amount: 1 }]);
    expect(owed!.allowed).toBe(false);
  });

  it('admits a budget while spend is below the limit, reserving only this request, and alerts once', async () => {
    const s = make();
    const c = budget(uniq('bud'), 1, 0.3, 0.5);
    const v1 = (await s.take([c]))[0]!;
    const v2 = (await s.take([c]))[0]!;
    const v3 = (await s.take([c]))[0]!;
    const v4 = (await s.take([c]))[0]!;
    const v5 = (await s.take([c]))[0]!;
    expect([v1, v2, v3, v4, v5].map((v) => v.allowed)).toEqual([true, true, true, true, false]);
    expect([v1, v2, v3, v4].map((v) => v.alert)).toEqual([false, true, false, false]);
    expect(v1.remaining).toBeCloseTo(0.7, 9);
    expect(v5.retryAfterMs).toBeGreaterThan(3_500_000);
    // Settling the real cost (each cost 0.1, not 0.3) gives budget back.
    await s.adjust([{ check: c, delta: -0.8 }]);
    expect((await s.take([c]))[0]!.allowed).toBe(true);
  });

  it('refuses a zero budget', async () => {
    const s = make();
    expect((await s.take([budget(uniq('nobud'), 0, 0.01)]))[0]!.allowed).toBe(false);
  });
});

describe('sliding window (memory store, controlled clock)', () => {
  it('a slow burst inside one window admits the limit, no more; the previous window fades out', async () => {
    const start = Math.ceil(Date.now() / 60_000) * 60_000;
    let now = start;
    const s = new MemoryLimitStore(() => now);
    const c = rate('rl:{slide}:requests:rpm', 3, 60_000);
    const admitted = [];
    // Ten requests, five seconds apart (a token bucket would refill one in between).
    for (let i = 0; i < 10; i++, now += 5_000) admitted.push((await s.take([c]))[0]!.allowed);
    expect(admitted.filter(Boolean)).toHaveLength(3);
    // 0.6 s into the next window 99 % of the previous 3 still counts: refused, for 19.4 s.
    now = start + 60_600;
    const [early] = await s.take([c]);
    expect(early).toMatchObject({ allowed: false });
    expect(early!.retryAfterMs).toBe(19_400);
    now += 19_400;
    expect((await s.take([c]))[0]!.allowed).toBe(true);
    // Two windows later nothing is left.
    now = start + 180_000;
    expect((await s.take([c]))[0]!.remaining).toBe(2);
  });
});

describe('across workers (Redis)', () => {
  it('four workers bursting at a 100-per-minute key admit at most 101', async () => {
    const stores = [redisStore(), redisStore(), redisStore(), redisStore()];
    const c = rate(`rl:{ak:burst${++n}}:requests:rpm`, 100, 60_000);
    const verdicts = await Promise.all(Array.from({ length: 400 }, (_, i) => stores[i % 4]!.take([c])));
    const admitted = verdicts.filter((v) => v[0]!.allowed).length;
    expect(admitted).toBeGreaterThanOrEqual(100);
    expect(admitted).toBeLessThanOrEqual(101);
  });

  it('concurrent requests on a $1.00 budget spend at most one request beyond it', async () => {
    const stores = [redisStore(), redisStore(), redisStore(), redisStore()];
    const cost = 0.07;
    const c = budget(`bud:{ak:b${++n}}:cost`, 1, cost);
    const verdicts = await Promise.all(Array.from({ length: 60 }, (_, i) => stores[i % 4]!.take([c])));
    const spent = verdicts.filter((v) => v[0]!.allowed).length * cost;
    expect(spent).toBeGreaterThanOrEqual(1);
    expect(spent).toBeLessThanOrEqual(1 + cost + 1e-9);
  });

  it('groups counters by hash tag and gives back what one tag took when another refuses', async () => {
    const s = redisStore();
    const a = rate(`rl:{ka${++n}}:x`, 5, 60_000);
    const b = rate(`rl:{kb${n}}:x`, 0, 60_000);
    expect(hashTagOf(a.key)).not.toBe(hashTagOf(b.key));
    const v = await s.take([a, b]);
    expect(v[1]!.allowed).toBe(false);
    const [after] = await s.take([a]);
    expect(after!.remaining).toBe(4);
  });
});
