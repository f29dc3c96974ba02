// Watch on the worker side without a network: how the key cache applies events, and how the
// watcher (re)subscribes, acknowledges and reconnects.
import { describe, it, expect } from 'vitest';
import type { ResolvedKey } from '../../../src/domain/api-key.ts';
import { silentLogger } from '../../../src/domain/logger.ts';
import type { ResourceEvent, WatchSubscription } from '../../../src/domain/sync-codec.ts';
import type { ControlPlaneLink, WatchChannel, WatchHandlers } from '../../../workers/contracts.ts';
import { KeyCache } from '../../../workers/sync/key-cache.ts';
import { KeyWatcher } from '../../../workers/sync/key-watcher.ts';

const key = (id: string, version = 1, scopes = ['completions.write']): ResolvedKey => ({
  id, organisationId: 'o', workspaceId: 'w', userId: null, type: 'workspace-service', status: 'active',
  scopes, expiresAt: null, rateLimits: [], usageLimits: null, defaults: {}, version,
});
const ev = (over: Partial<ResourceEvent>): ResourceEvent => ({ version: 1, resourceType: 'api_key', resourceKey: 'h1', action: 'upsert', key: null, ...over });

function link(answers: Record<string, ResolvedKey | null>) {
  const calls: string[] = [];
  const gates: (() => void)[] = [];
  let gated = false;
  const l: ControlPlaneLink = {
    async resolveKey(hash) {
      calls.push(hash);
      const answer = answers[hash] ?? null;
      if (gated) await new Promise<void>((r) => gates.push(r));
      return answer;
    },
  };
  return { link: l, calls, gate: (v: boolean) => (gated = v), release: () => gates.splice(0).forEach((g) => g()) };
}

const cacheOf = (l: ControlPlaneLink) => new KeyCache(l, { ttlMs: 60_000, negativeTtlMs: 60_000, maxStaleMs: 86_400_000 });

describe('KeyCache.apply', () => {
  it('a delete refuses a held key at once and is remembered (no lookup)', async () => {
    const f = link({ h1: key('k1') });
    const cache = cacheOf(f.link);
    expect(await cache.get('h1')).toMatchObject({ id: 'k1' });
    cache.apply(ev({ action: 'delete', version: 9 }));
    expect(await cache.get('h1')).toBeNull();
    expect(f.calls).toEqual(['h1']);
  });

  it('an upsert with the key replaces the held one, unless it holds a newer revision', async () => {
    const f = link({ h1: key('k1', 5) });
    const cache = cacheOf(f.link);
    await cache.get('h1');
    cache.apply(ev({ key: key('k1', 7, ['logs.list']) }));
    expect(await cache.get('h1')).toMatchObject({ version: 7, scopes: ['logs.list'] });
    cache.apply(ev({ key: key('k1', 6, ['completions.write']) })); // older, delivered late
    expect(await cache.get('h1')).toMatchObject({ version: 7, scopes: ['logs.list'] });
    expect(cache.held()).toEqual([{ type: 'api_key', key: 'h1', version: 7 }]);
  });

  it('an upsert without the key invalidates: the next request asks again', async () => {
    const f = link({ h1: key('k1') });
    const cache = cacheOf(f.link);
    await cache.get('h1');
    cache.apply(ev({}));
    await cache.get('h1');
    expect(f.calls).toEqual(['h1', 'h1']);
  });

  it('leaves hashes it does not hold alone', async () => {
    const cache = cacheOf(link({}).link);
    cache.apply(ev({ key: key('k1') }));
    cache.apply(ev({ resourceKey: 'h2', action: 'delete' }));
    expect(cache.size).toBe(0);
  });

  it('a lookup overtaken by a delete does not bring the key back', async () => {
    const f = link({ h1: key('k1') });
    const cache = cacheOf(f.link);
    f.gate(true);
    const pending = cache.get('h1'); // the control plane answered before the revoke committed...
    await Promise.resolve();
    cache.apply(ev({ action: 'delete', version: 3 })); // ...and the revoke arrives before the answer
    f.release();
    expect(await pending).toBeNull();
    f.gate(false);
    expect(await cache.get('h1')).toBeNull();
    expect(f.calls).toEqual(['h1']);
  });

  it('a reset drops everything held', async () => {
    const f = link({ h1: key('k1'), h2: key('k2') });
    const cache = cacheOf(f.link);
    await cache.get('h1');
    await cache.get('h2');
    cache.apply(ev({ action: 'reset', resourceType: '*', resourceKey: '' }));
    expect(cache.size).toBe(0);
  });
});

function fakeChannel() {
  const opened: { sub: WatchSubscription; handlers: WatchHandlers; acks: number[]; held: string[][]; ended: boolean }[] = [];
  const channel: WatchChannel = {
    watch(sub, handlers) {
      const s = { sub, handlers, acks: [] as number[], held: [] as string[][], ended: false };
      opened.push(s);
      return {
        sendHeld: (h) => s.held.push(h.map((x) => x.key)),
        ack: (v) => s.acks.push(v),
        end: () => (s.ended = true),
      };
    },
  };
  return { channel, opened };
}

const tick = (ms = 30) => new Promise((r) => setTimeout(r, ms));

describe('KeyWatcher', () => {
  it('subscribes with what it holds, applies events, acknowledges the highest version, resubscribes from it', async () => {
    const f = link({ h1: key('k1', 4), h2: key('k2', 5), h3: key('k3', 6) });
    const cache = cacheOf(f.link);
    await cache.get('h1');
    await cache.get('h2');
    await cache.get('h3');
    const { channel, opened } = fakeChannel();
    const watcher = new KeyWatcher(channel, cache, { workerId: 'w1', heldChunk: 2, reconnectMinMs: 5, ackDelayMs: 5 }, silentLogger);
    watcher.start();
    expect(opened[0]!.sub).toEqual({ workerId: 'w1', sinceVersion: 0, held: [{ type: 'api_key', key: 'h1', version: 4 }, { type: 'api_key', key: 'h2', version: 5 }] });
    expect(opened[0]!.held).toEqual([['h3']]); // the rest, in chunks
    opened[0]!.handlers.onOpen();
    opened[0]!.handlers.onEvent(ev({ version: 20, resourceKey: 'h1', action: 'delete' }));
    opened[0]!.handlers.onEvent(ev({ version: 21, resourceKey: 'h9', action: 'upsert' }));
    await tick();
    expect(opened[0]!.acks).toEqual([21]); // coalesced
    expect(watcher.snapshot()).toMatchObject({ connected: true, appliedVersion: 21 });
    expect(await cache.get('h1')).toBeNull();

    opened[0]!.handlers.onClose(new Error('connection reset'));
    expect(watcher.snapshot().connected).toBe(false);
    await tick();
    expect(opened).toHaveLength(2);
    expect(opened[1]!.sub.sinceVersion).toBe(21);
    expect(opened[1]!.sub.held.map((h) => h.key)).toEqual(['h2', 'h3']);
    watcher.close();
    expect(opened[1]!.ended).toBe(true);
  });

  it('a reset sets the applied version to the one the control plane gives', async () => {
    const f = link({ h1: key('k1') });
    const cache = cacheOf(f.link);
    await cache.get('h1');
    const { channel, opened } = fakeChannel();
    const watcher = new KeyWatcher(channel, cache, { workerId: 'w2', ackDelayMs: 1 }, silentLogger);
    watcher.start();
    opened[0]!.handlers.onEvent(ev({ version: 50, resourceKey: 'hx' }));
    opened[0]!.handlers.onEvent(ev({ version: 30, action: 'reset', resourceType: '*', resourceKey: '' }));
    expect(watcher.snapshot()).toMatchObject({ appliedVersion: 30, resets: 1 });
    expect(cache.size).toBe(0);
    watcher.close();
  });
});
