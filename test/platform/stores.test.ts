import { describe, it, expect, afterAll } from 'vitest';
import { MemoryStore, type SharedStore } from '../../src/domain/store.ts';
import { RedisStore } from '../../src/platform/redis-store.ts';
import { TEST_REDIS_URL } from '../support/db.ts';

const redis = new RedisStore({ url: TEST_REDIS_URL, keyPrefix: `gwtest:stores:${process.pid}:` });
afterAll(() => redis.close());

describe.each([
  ['memory', () => new MemoryStore() as SharedStore],
  ['redis', () => redis as SharedStore],
])('%s store', (_name, make) => {
  it('sets, gets, expires and deletes', async () => {
    const s = make();
    await s.set('a', '1', 60_000);
    expect(await s.get('a')).toBe('1');
    await s.set('short', 'x', 30);
    await new Promise((r) => setTimeout(r, 80)); // the TTL itself is what is under test
    expect(await s.get('short')).toBeNull();
    await s.del('a');
    expect(await s.get('a')).toBeNull();
  });
});

describe('MemoryStore', () => {
  it('evicts the oldest entry past its size bound', async () => {
    const s = new MemoryStore(2);
    await s.set('a', '1', 60_000);
    await s.set('b', '2', 60_000);
    await s.set('c', '3', 60_000);
    expect([await s.get('a'), await s.get('b'), await s.get('c')]).toEqual([null, '2', '3']);
  });
});

describe('RedisStore', () => {
  it('fails fast instead of hanging when Redis is unreachable', async () => {
    const dead = new RedisStore({ url: 'redis://127.0.0.1:1', commandTimeoutMs: 200 });
    const t0 = Date.now();
    await expect(dead.get('x')).rejects.toBeTruthy();
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(dead.reachable).toBe(false);
    await dead.close();
  });
});
