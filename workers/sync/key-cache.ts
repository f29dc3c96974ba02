import type { ResolvedKey } from '../../src/domain/api-key.ts';
import type { SharedStore } from '../../src/domain/store.ts';
import { API_KEY_RESOURCE, type HeldResource, type ResourceEvent } from '../../src/domain/sync-codec.ts';
import { ControlPlaneUnavailable, type ControlPlaneLink } from '../contracts.ts';

export interface KeyCacheOptions {
  ttlMs: number;
  /** Unknown keys are remembered this long, so a flood of bad keys does not reach the control plane. */
  negativeTtlMs: number;
  /** How long a key may be served past its TTL while the control plane cannot be reached. */
  maxStaleMs: number;
  maxEntries?: number;
  now?: () => number;
  /** Shares negative answers between workers, so each bad key costs the control plane one lookup fleet-wide. */
  shared?: SharedStore;
}

const NEGATIVE_PREFIX = 'keyneg:';

interface Entry {
  key: ResolvedKey | null;
  fetchedAt: number;
  expiresAt: number;
}

/**
 * Worker-side cache of resolved keys, with single-flight lookups and last-known-good answers.
 * Watch events (apply) update or invalidate entries the moment a change commits; the TTL is the
 * fallback when no stream is up.
 */
export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<ResolvedKey | null>>();
  /** Lookups in flight that a Watch event overtook: their answer may predate the change, so it is not kept. */
  private readonly overtaken = new Set<string>();
  private readonly now: () => number;
  private readonly maxEntries: number;

  constructor(private readonly link: ControlPlaneLink, private readonly opts: KeyCacheOptions) {
    this.now = opts.now ?? Date.now;
    this.maxEntries = opts.maxEntries ?? 100_000;
  }

  /** The key, null when unknown; rejects with ControlPlaneUnavailable when neither cache nor control plane can answer. */
  get(keyHash: string): Promise<ResolvedKey | null> | ResolvedKey | null {
    const hit = this.entries.get(keyHash);
    const now = this.now();
    if (hit && hit.expiresAt > now) return hit.key;
    return this.refresh(keyHash, hit);
  }

  invalidate(keyHash: string): void {
    this.entries.delete(keyHash);
  }

  /**
   * Applies a Watch event. An upsert with the key replaces what is held (unless it holds a newer
   * revision); without the key it invalidates. A delete invalidates and caches the hash as unknown.
   * Hashes neither held nor being looked up are left alone: nobody here uses them.
   */
  apply(event: ResourceEvent): void {
    if (event.action === 'reset') return this.reset();
    if (event.resourceType !== API_KEY_RESOURCE) return;
    const hash = event.resourceKey;
    const held = this.entries.get(hash);
    const looking = this.inflight.has(hash);
    if (!held && !looking) return;
    if (looking) this.overtaken.add(hash);
    const now = this.now();
    if (event.action === 'delete') {
      this.store(hash, { key: null, fetchedAt: now, expiresAt: now + this.opts.negativeTtlMs });
    } else if (event.key) {
      if (held?.key && held.key.version > event.key.version) return;
      this.store(hash, { key: event.key, fetchedAt: now, expiresAt: now + this.opts.ttlMs });
    } else {
      this.entries.delete(hash);
    }
  }

  /** Drops everything held (a Watch `reset`: the control plane cannot say what changed). */
  reset(): void {
    this.entries.clear();
    for (const hash of this.inflight.keys()) this.overtaken.add(hash);
  }

  /** The keys held, with their revisions (sent when the Watch stream (re)subscribes). */
  held(): HeldResource[] {
    const out: HeldResource[] = [];
    for (const [hash, e] of this.entries) if (e.key) out.push({ type: API_KEY_RESOURCE, key: hash, version: e.key.version });
    return out;
  }

  get size(): number {
    return this.entries.size;
  }

  private refresh(keyHash: string, stale: Entry | undefined): Promise<ResolvedKey | null> {
    let p = this.inflight.get(keyHash);
    if (p) return p;
    p = this.lookup(keyHash)
      .then(
        (key) => {
          if (this.overtaken.has(keyHash)) {
            // A change arrived while we asked: what it left in the cache is newer than this answer.
            const current = this.entries.get(keyHash);
            return current ? current.key : key;
          }
          const now = this.now();
          this.store(keyHash, { key, fetchedAt: now, expiresAt: now + (key ? this.opts.ttlMs : this.opts.negativeTtlMs) });
          return key;
        },
        (err: unknown) => {
          // Static stability: serve what we held, within the staleness bound.
          if (stale?.key && this.now() - stale.fetchedAt <= this.opts.maxStaleMs) return stale.key;
          throw err instanceof ControlPlaneUnavailable ? err : new ControlPlaneUnavailable(String(err));
        },
      )
      .finally(() => {
        this.inflight.delete(keyHash);
        this.overtaken.delete(keyHash);
      });
    this.inflight.set(keyHash, p);
    return p;
  }

  private async lookup(keyHash: string): Promise<ResolvedKey | null> {
    const shared = this.opts.shared;
    if (shared && (await shared.get(NEGATIVE_PREFIX + keyHash).catch(() => null)) !== null) return null;
    const key = await this.link.resolveKey(keyHash);
    if (!key && shared) await shared.set(NEGATIVE_PREFIX + keyHash, '1', this.opts.negativeTtlMs).catch(() => {});
    return key;
  }

  private store(keyHash: string, entry: Entry): void {
    if (this.entries.size >= this.maxEntries && !this.entries.has(keyHash)) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.delete(keyHash); // re-insert: Map order doubles as LRU-ish eviction order
    this.entries.set(keyHash, entry);
  }
}
