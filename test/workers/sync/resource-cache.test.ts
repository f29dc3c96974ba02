import { describe, it, expect } from 'vitest';
import type { ResolvedResource } from '../../../src/domain/sync-codec.ts';
import { ControlPlaneUnavailable, type ResourceLink } from '../../../workers/contracts.ts';
import { ResourceCache } from '../../../workers/sync/resource-cache.ts';

function fakeLink() {
  const data = new Map<string, ResolvedResource>();
  const calls: string[] = [];
  let down = false;
  const pending: (() => void)[] = [];
  let hold = false;
  const link: ResourceLink = {
    async resolveResource(type, key) {
      calls.push(`${type}/${key}`);
      if (hold) await new Promise<void>((r) => pending.push(r));
      if (down) throw new ControlPlaneUnavailable('down');
      return data.get(`${type}/${key}`) ?? null;
    },
  };
  return {
    link,
    data,
    calls,
    setDown: (v: boolean) => (down = v),
    setHold: (v: boolean) => (hold = v),
    release: () => pending.splice(0).forEach((r) => r()),
  };
}

const res = (version: number, payload: Record<string, unknown> = { v: version }): ResolvedResource => ({ version, payload });

describe('ResourceCache', () => {
  it('resolves once for concurrent requests and serves from cache within the TTL', async () => {
    let now = 0;
    const f = fakeLink();
    f.data.set('provider/ws:openai', res(3));
    const cache = new ResourceCache(f.link, { ttlMs: 1_000, negativeTtlMs: 100, maxStaleMs: 10_000, now: () => now });
    const [a, b] = await Promise.all([cache.get('provider', 'ws:openai'), cache.get('provider', 'ws:openai')]);
    expect(a).toEqual(res(3));
    expect(b).toBe(a);
    expect(f.calls).toEqual(['provider/ws:openai']);
    now = 999;
    expect(cache.get('provider', 'ws:openai')).toEqual(res(3));
    now = 1_000;
    await cache.get('provider', 'ws:openai');
    expect(f.calls).toHaveLength(2);
  });

  it('remembers unknown resources for the negative TTL only', async () => {
    let now = 0;
    const f = fakeLink();
    const cache = new ResourceCache(f.link, { ttlMs: 1_000, negativeTtlMs: 100, maxStaleMs: 10_000, now: () => now });
    expect(await cache.get('config', 'nope')).toBeNull();
    expect(cache.get('config', 'nope')).toBeNull();
    expect(f.calls).toHaveLength(1);
    now = 100;
    f.data.set('config/nope', res(1));
    expect(await cache.get('config', 'nope')).toEqual(res(1));
  });

  it('serves what it held within the staleness bound while the control plane is away, then refuses', async () => {
    let now = 0;
    const f = fakeLink();
    f.data.set('config/c', res(1));
    const cache = new ResourceCache(f.link, { ttlMs: 10, negativeTtlMs: 10, maxStaleMs: 1_000, now: () => now });
    await cache.get('config', 'c');
    f.setDown(true);
    now = 500;
    expect(await cache.get('config', 'c')).toEqual(res(1));
    now = 1_001;
    await expect(cache.get('config', 'c')).rejects.toBeInstanceOf(ControlPlaneUnavailable);
    await expect(cache.get('config', 'never-held')).rejects.toBeInstanceOf(ControlPlaneUnavailable);
  });

  it('applies Watch upserts (never going back to an older version), deletes and resets to what it holds', async () => {
    const f = fakeLink();
    f.data.set('config/c', res(5));
    const cache = new ResourceCache(f.link, { ttlMs: 60_000, negativeTtlMs: 60_000, maxStaleMs: 60_000 });
    await cache.get('config', 'c');
    cache.apply({ version: 7, resourceType: 'config', resourceKey: 'c', action: 'upsert', key: null, resource: res(7) });
    expect(cache.get('config', 'c')).toEqual(res(7));
    cache.apply({ version: 0, resourceType: 'config', resourceKey: 'c', action: 'upsert', key: null, resource: res(6) });
    expect(cache.get('config', 'c')).toEqual(res(7));
    expect(cache.held()).toEqual([{ type: 'config', key: 'c', version: 7 }]);
    // Not held: ignored, nobody here uses it.
    cache.apply({ version: 8, resourceType: 'config', resourceKey: 'other', action: 'upsert', key: null, resource: res(8) });
    expect(cache.size).toBe(1);
    cache.apply({ version: 9, resourceType: 'config', resourceKey: 'c', action: 'delete', key: null });
    expect(cache.get('config', 'c')).toBeNull();
    expect(cache.held()).toEqual([]);
    // An upsert without the resource invalidates: the next get asks again.
    f.data.set('config/c', res(10));
    await cache.get('config', 'c'); // negative entry still valid → null, no call
    cache.apply({ version: 10, resourceType: 'config', resourceKey: 'c', action: 'upsert', key: null, resource: null });
    expect(await cache.get('config', 'c')).toEqual(res(10));
    cache.apply({ version: 11, resourceType: '*', resourceKey: '', action: 'reset', key: null });
    expect(cache.size).toBe(0);
  });

  it('does not keep a lookup answer that a Watch event overtook', async () => {
    const f = fakeLink();
    f.data.set('provider/p', res(1));
    const cache = new ResourceCache(f.link, { ttlMs: 60_000, negativeTtlMs: 60_000, maxStaleMs: 60_000 });
    f.setHold(true);
    const pending = cache.get('provider', 'p');
    await Promise.resolve();
    cache.apply({ version: 2, resourceType: 'provider', resourceKey: 'p', action: 'delete', key: null });
    f.release();
    expect(await pending).toBeNull();
    expect(cache.get('provider', 'p')).toBeNull();
  });
});

describe('ResourceCache.getOrStale', () => {
  it('answers a stale value at once and refreshes it in the background', async () => {
    let now = 0;
    const f = fakeLink();
    f.data.set('workspace/w', res(1));
    const cache = new ResourceCache(f.link, { ttlMs: 10, negativeTtlMs: 10, maxStaleMs: 1_000, now: () => now });
    expect(await cache.getOrStale('workspace', 'w')).toEqual(res(1));
    f.data.set('workspace/w', res(2));
    now = 20;
    expect(cache.getOrStale('workspace', 'w')).toEqual(res(1));
    await new Promise((r) => setTimeout(r, 0));
    expect(cache.getOrStale('workspace', 'w')).toEqual(res(2));
    expect(f.calls).toHaveLength(2);
  });
});
