import { describe, it, expect } from 'vitest';
import type { ResolvedKey } from '../../../src/domain/api-key.ts';
import { ControlPlaneUnavailable, type ControlPlaneLink } from '../../../workers/contracts.ts';
import { KeyCache } from '../../../workers/sync/key-cache.ts';

const key = (id: string): ResolvedKey => ({
  id, organisationId: 'o', workspaceId: 'w', userId: null, type: 'workspace-service', status: 'active',
  scopes: ['completions.write'], expiresAt: null, rateLimits: [], usageLimits: null, defaults: {}, version: 1,
});

function fakeLink(answers: Record<string, ResolvedKey | null>) {
  const calls: string[] = [];
  let down = false;
  const link: ControlPlaneLink = {
    async resolveKey(hash) {
      calls.push(hash);
      if (down) throw new ControlPlaneUnavailable('down');
      return answers[hash] ?? null;
    },
  };
  return { link, calls, setDown: (v: boolean) => (down = v) };
}

describe('KeyCache', () => {
  it('asks the control plane once per key and serves hits from memory', async () => {
    const f = fakeLink({ h1: key('k1') });
    const cache = new KeyCache(f.link, { ttlMs: 1000, negativeTtlMs: 100, maxStaleMs: 10_000 });
    const results = await Promise.all([cache.get('h1'), cache.get('h1'), cache.get('h1')]);
    expect(results.map((r) => r?.id)).toEqual(['k1', 'k1', 'k1']);
    expect(await cache.get('h1')).toMatchObject({ id: 'k1' });
    expect(f.calls).toEqual(['h1']); // single flight, then cached
  });

  it('caches unknown keys negatively for a short time only', async () => {
    let now = 0;
    const f = fakeLink({});
    const cache = new KeyCache(f.link, { ttlMs: 1000, negativeTtlMs: 100, maxStaleMs: 10_000, now: () => now });
    expect(await cache.get('bad')).toBeNull();
    expect(await cache.get('bad')).toBeNull();
    expect(f.calls).toHaveLength(1);
    now = 150;
    expect(await cache.get('bad')).toBeNull();
    expect(f.calls).toHaveLength(2);
  });

  it('serves a held key past its TTL while the control plane is down, within the staleness bound', async () => {
    let now = 0;
    const f = fakeLink({ h1: key('k1') });
    const cache = new KeyCache(f.link, { ttlMs: 100, negativeTtlMs: 10, maxStaleMs: 1000, now: () => now });
    await cache.get('h1');
    f.setDown(true);
    now = 500;
    expect(await cache.get('h1')).toMatchObject({ id: 'k1' });
    now = 2000;
    await expect(cache.get('h1')).rejects.toBeInstanceOf(ControlPlaneUnavailable);
  });

  it('refuses unknown keys with ControlPlaneUnavailable when the control plane is down', async () => {
    const f = fakeLink({});
    f.setDown(true);
    const cache = new KeyCache(f.link, { ttlMs: 100, negativeTtlMs: 10, maxStaleMs: 1000 });
    await expect(cache.get('new')).rejects.toBeInstanceOf(ControlPlaneUnavailable);
  });

  it('evicts the oldest entry beyond maxEntries', async () => {
    const f = fakeLink({ a: key('a'), b: key('b'), c: key('c') });
    const cache = new KeyCache(f.link, { ttlMs: 10_000, negativeTtlMs: 10, maxStaleMs: 0, maxEntries: 2 });
    await cache.get('a');
    await cache.get('b');
    await cache.get('c');
    expect(cache.size).toBe(2);
    await cache.get('a');
    expect(f.calls).toEqual(['a', 'b', 'c', 'a']);
  });
});

describe('KeyCache with a shared store', () => {
  it('lets workers share negative answers, so a bad key reaches the control plane once', async () => {
    const { MemoryStore } = await import('../../../src/domain/store.ts');
    const shared = new MemoryStore();
    const f = fakeLink({});
    const a = new KeyCache(f.link, { ttlMs: 1000, negativeTtlMs: 60_000, maxStaleMs: 0, shared });
    const b = new KeyCache(f.link, { ttlMs: 1000, negativeTtlMs: 60_000, maxStaleMs: 0, shared });
    expect(await a.get('bad')).toBeNull();
    expect(await b.get('bad')).toBeNull();
    expect(f.calls).toEqual(['bad']);
  });

  it('still answers when the shared store fails', async () => {
    const broken = { kind: 'redis' as const, get: async () => { throw new Error('down'); }, set: async () => { throw new Error('down'); }, del: async () => {}, close: async () => {} };
    const f = fakeLink({ h: key('k') });
    const c = new KeyCache(f.link, { ttlMs: 1000, negativeTtlMs: 10, maxStaleMs: 0, shared: broken });
    expect(await c.get('h')).toMatchObject({ id: 'k' });
    expect(await c.get('nope')).toBeNull();
  });
});
