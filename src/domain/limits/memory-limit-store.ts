import { adjustRate, budgetVerdict, rateVerdict, slide, type RateState } from './counter-maths.ts';
import type { LimitAdjustment, LimitCheck, LimitStore, LimitVerdict } from './limit-store.ts';

interface BudgetState {
  used: number;
  periodEndMs: number;
  alerted: boolean;
}

/**
 * Counters in this process: the embedded default, a lone worker, and the fail-open fallback
 * while Redis is away (then each worker counts on its own).
 */
export class MemoryLimitStore implements LimitStore {
  readonly kind = 'memory' as const;
  private readonly rates = new Map<string, RateState>();
  private readonly budgets = new Map<string, BudgetState>();

  constructor(private readonly now: () => number = Date.now, private readonly maxEntries = 200_000) {}

  async take(checks: LimitCheck[]): Promise<LimitVerdict[]> {
    const now = this.now();
    const results = checks.map((c) => {
      if (c.kind === 'rate') return rateVerdict(c, slide(c, this.rates.get(c.key), now));
      const b = this.budget(c, now);
      const r = budgetVerdict(c, b.used, now);
      return { ...r, verdict: { ...r.verdict, alert: r.verdict.alert && !b.alerted } };
    });
    if (results.every((r) => r.verdict.allowed)) {
      checks.forEach((c, i) => {
        const r = results[i]!;
        if (c.kind === 'rate') this.setRate(c.key, r.after as RateState);
        else {
          const b = this.budget(c, now);
          b.used = r.after as number;
          if (r.verdict.alert) b.alerted = true;
        }
      });
    } else {
      // Nothing was taken: no alert either.
      for (const r of results) r.verdict.alert = false;
    }
    return results.map((r) => r.verdict);
  }

  async adjust(adjustments: LimitAdjustment[]): Promise<void> {
    const now = this.now();
    for (const { check, delta } of adjustments) {
      if (!delta) continue;
      if (check.kind === 'rate') {
        // Debt (more used than reserved) is kept, up to one more whole window.
        this.setRate(check.key, adjustRate(check, slide(check, this.rates.get(check.key), now), delta));
      } else {
        const b = this.budget(check, now);
        b.used = Math.max(0, b.used + delta);
      }
    }
  }

  async close(): Promise<void> {
    this.rates.clear();
    this.budgets.clear();
  }

  private budget(c: LimitCheck, now: number): BudgetState {
    let b = this.budgets.get(c.key);
    if (!b || b.periodEndMs <= now) {
      b = { used: 0, periodEndMs: c.periodEndMs ?? Number.MAX_SAFE_INTEGER, alerted: false };
      this.evict(this.budgets);
      this.budgets.set(c.key, b);
    }
    return b;
  }

  private setRate(key: string, state: RateState): void {
    if (!this.rates.has(key)) this.evict(this.rates);
    this.rates.set(key, state);
  }

  private evict(map: Map<string, unknown>): void {
    if (map.size < this.maxEntries) return;
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
}
