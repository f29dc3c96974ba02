import type { ResolvedKey } from '../../src/domain/api-key.ts';
import type { SharedStore } from '../../src/domain/store.ts';
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

/** Worker-side cache of resolved keys, with single-flight lookups and last-known-good answers. */
export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<ResolvedKey | null>>();
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

  get size(): number {
    return this.entries.size;
  }

  private refresh(keyHash: string, stale: Entry | undefined): Promise<ResolvedKey | null> {
    let p = this.inflight.get(keyHash);
    if (p) return p;
    p = this.lookup(keyHash)
      .then(
        (key) => {
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
      .finally(() => this.inflight.delete(keyHash));
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
