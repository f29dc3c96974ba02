import { AppError } from '../errors.ts';
import type { LimitAdjustment, LimitCheck, LimitStore, LimitVerdict } from './limit-store.ts';
import { MemoryLimitStore } from './memory-limit-store.ts';

/** What limits do while the shared store (Redis) is unreachable (issue 8 item 6). */
export type LimitFailureMode = 'open' | 'closed';

export interface LimitStoreHealth {
  mode: LimitFailureMode;
  /** false while the shared store fails: fail-open counts per worker, fail-closed refuses. */
  shared: boolean;
  /** Epoch ms since the shared store has been failing (null while healthy). */
  degradedSince: number | null;
}

/**
 * The shared store with a fallback: when it fails, `open` keeps counting in this worker alone
 * (limits hold per worker, not fleet-wide) and `closed` refuses with 503. The next success
 * returns to the shared counters. Nothing throws past this except the fail-closed refusal.
 */
export class ResilientLimitStore implements LimitStore {
  readonly kind: 'redis' | 'memory';
  private readonly fallback: MemoryLimitStore;
  private degradedSince: number | null = null;

  constructor(
    private readonly primary: LimitStore,
    private readonly mode: LimitFailureMode,
    private readonly onChange: (health: LimitStoreHealth) => void = () => {},
    now: () => number = Date.now,
  ) {
    this.kind = primary.kind;
    this.fallback = new MemoryLimitStore(now);
  }

  health(): LimitStoreHealth {
    return { mode: this.mode, shared: this.degradedSince === null, degradedSince: this.degradedSince };
  }

  async take(checks: LimitCheck[]): Promise<LimitVerdict[]> {
    try {
      const verdicts = await this.primary.take(checks);
      this.mark(true);
      return verdicts;
    } catch {
      this.mark(false);
      if (this.mode === 'closed') {
        throw new AppError(503, 'service_unavailable_error', 'rate_limiter_unavailable', 'Rate limits cannot be checked right now (the shared store is unreachable). Retry shortly.');
      }
      return this.fallback.take(checks);
    }
  }

  async adjust(adjustments: LimitAdjustment[]): Promise<void> {
    const store = this.degradedSince === null ? this.primary : this.fallback;
    await store.adjust(adjustments).catch(() => this.mark(false));
  }

  async close(): Promise<void> {
    await this.fallback.close();
    await this.primary.close();
  }

  private mark(ok: boolean): void {
    const was = this.degradedSince === null;
    if (ok === was) return;
    this.degradedSince = ok ? null : Date.now();
    this.onChange(this.health());
  }
}
