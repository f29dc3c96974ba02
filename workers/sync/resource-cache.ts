import type { HeldResource, ResolvedResource, ResourceEvent } from '../../src/domain/sync-codec.ts';
import { ControlPlaneUnavailable, type ResourceLink } from '../contracts.ts';

export interface ResourceCacheOptions {
  ttlMs: number;
  /** Unknown resources are remembered this long (a request naming a missing `@slug` costs one lookup per window). */
  negativeTtlMs: number;
  /** How long a resource may be served past its TTL while the control plane cannot be reached (static stability). */
  maxStaleMs: number;
  maxEntries?: number;
  now?: () => number;
}

interface Entry {
  value: ResolvedResource | null;
  fetchedAt: number;
  expiresAt: number;
}

const id = (type: string, key: string) => `${type}\u0000${key}`;

/**
 * Worker-side cache of providers, configs, guardrails and policies (gRPC Resolve), the same way
 * KeyCache holds keys: single-flight lookups, negative answers, last-known-good within the
 * staleness bound, and Watch events applied the moment a change commits.
 */
export class ResourceCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<ResolvedResource | null>>();
  /** Lookups a Watch event overtook: their answer may predate the change. */
  private readonly overtaken = new Set<string>();
  private readonly now: () => number;
  private readonly maxEntries: number;

  constructor(private readonly link: ResourceLink, private readonly opts: ResourceCacheOptions) {
    this.now = opts.now ?? Date.now;
    this.maxEntries = opts.maxEntries ?? 50_000;
  }

  /** The resource's payload, null when unknown; rejects with ControlPlaneUnavailable when nothing can answer. */
  get(type: string, key: string): Promise<ResolvedResource | null> | ResolvedResource | null {
    const k = id(type, key);
    const hit = this.entries.get(k);
    if (hit && hit.expiresAt > this.now()) return hit.value;
    return this.refresh(type, key, k, hit);
  }

  /**
   * Like get(), but a held value past its TTL is answered at once while it is re-read in the
   * background (Watch pushes changes; the TTL is only the fallback), so a request never waits on
   * the control plane for something it already holds.
   */
  getOrStale(type: string, key: string): Promise<ResolvedResource | null> | ResolvedResource | null {
    const k = id(type, key);
    const hit = this.entries.get(k);
    if (!hit) return this.refresh(type, key, k, undefined);
    if (hit.expiresAt <= this.now()) this.refresh(type, key, k, hit).catch(() => {});
    return hit.value;
  }

  /** Applies a Watch event for a non-key resource (keys go to KeyCache). */
  apply(event: ResourceEvent): void {
    if (event.action === 'reset') return this.reset();
    const k = id(event.resourceType, event.resourceKey);
    const held = this.entries.get(k);
    const looking = this.inflight.has(k);
    if (!held && !looking) return;
    if (looking) this.overtaken.add(k);
    const now = this.now();
    if (event.action === 'delete') {
      this.store(k, { value: null, fetchedAt: now, expiresAt: now + this.opts.negativeTtlMs });
    } else if (event.resource) {
      if (held?.value && held.value.version > event.resource.version) return;
      this.store(k, { value: event.resource, fetchedAt: now, expiresAt: now + this.opts.ttlMs });
    } else {
      this.entries.delete(k);
    }
  }

  reset(): void {
    this.entries.clear();
    for (const k of this.inflight.keys()) this.overtaken.add(k);
  }

  /** What is held, with versions (sent when the Watch stream (re)subscribes). */
  held(): HeldResource[] {
    const out: HeldResource[] = [];
    for (const [k, e] of this.entries) {
      if (!e.value) continue;
      const sep = k.indexOf('\u0000');
      out.push({ type: k.slice(0, sep), key: k.slice(sep + 1), version: e.value.version });
    }
    return out;
  }

  get size(): number {
    return this.entries.size;
  }

  private refresh(type: string, key: string, k: string, stale: Entry | undefined): Promise<ResolvedResource | null> {
    let p = this.inflight.get(k);
    if (p) return p;
    p = this.link
      .resolveResource(type, key)
      .then(
        (value) => {
          if (this.overtaken.has(k)) {
            const current = this.entries.get(k);
            return current ? current.value : value;
          }
          const now = this.now();
          this.store(k, { value, fetchedAt: now, expiresAt: now + (value ? this.opts.ttlMs : this.opts.negativeTtlMs) });
          return value;
        },
        (err: unknown) => {
          if (stale?.value && this.now() - stale.fetchedAt <= this.opts.maxStaleMs) return stale.value;
          throw err instanceof ControlPlaneUnavailable ? err : new ControlPlaneUnavailable(String(err));
        },
      )
      .finally(() => {
        this.inflight.delete(k);
        this.overtaken.delete(k);
      });
    this.inflight.set(k, p);
    return p;
  }

  private store(k: string, entry: Entry): void {
    if (this.entries.size >= this.maxEntries && !this.entries.has(k)) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.delete(k);
    this.entries.set(k, entry);
  }
}
