// The counter rules, written once in TypeScript for the in-process store; the Redis Lua script
// (src/platform/redis-limit-store.ts) implements the same rules and the same tests run on both.
import type { LimitCheck, LimitVerdict } from './limit-store.ts';

/**
 * A rate counter as a sliding window (two fixed windows, the previous one weighted by how much of
 * it still overlaps the last `windowMs`): `count` taken in window `index` (floor(now / windowMs)),
 * `prev` in the window before. Unlike a token bucket, a burst inside one window admits at most
 * `limit` however long it lasts (issue 8 item 5: a 100 rpm burst over four workers admits ≤ 101).
 */
export interface RateState {
  index: number;
  count: number;
  prev: number;
}

export interface RateWindow extends RateState {
  /** What the last `windowMs` used: prev × (1 − elapsed fraction) + count. */
  used: number;
  /** ms from the start of the current window. */
  elapsedMs: number;
  window: number;
}

/** The state moved to `now`'s window, and the sliding use. A missing counter is empty. */
export function slide(check: LimitCheck, state: RateState | undefined, now: number): RateWindow {
  const window = Math.max(1, check.windowMs ?? 1_000);
  const index = Math.floor(now / window);
  let count = 0;
  let prev = 0;
  if (state?.index === index) ({ count, prev } = state);
  else if (state?.index === index - 1) prev = state.count;
  const elapsedMs = now - index * window;
  return { index, count, prev, window, elapsedMs, used: prev * (1 - elapsedMs / window) + count };
}

export function rateVerdict(check: LimitCheck, w: RateWindow): { verdict: LimitVerdict; after: RateState } {
  const { window } = w;
  const kept: RateState = { index: w.index, count: w.count, prev: w.prev };
  if (check.limit <= 0) return { verdict: { allowed: false, remaining: 0, resetMs: window, retryAfterMs: window, alert: false }, after: kept };
  const take = Math.min(check.amount, check.limit);
  const allowed = w.used + take <= check.limit + 1e-9;
  const count = allowed ? w.count + take : w.count;
  const used = allowed ? w.used + take : w.used;
  const toWindowEnd = window - w.elapsedMs;
  let retryAfterMs = 0;
  if (!allowed) {
    const need = w.used + take - check.limit;
    const decaying = w.prev * (1 - w.elapsedMs / window);
    // The previous window's share fades within this window; otherwise wait for this window's to fade in the next.
    if (w.prev > 0 && decaying >= need) retryAfterMs = Math.ceil((need * window) / w.prev);
    else retryAfterMs = Math.ceil(toWindowEnd + Math.max(0, 1 - (check.limit - take) / Math.max(count, 1e-9)) * window);
  }
  return {
    after: allowed ? { index: w.index, count, prev: w.prev } : kept,
    verdict: {
      allowed,
      remaining: Math.max(0, Math.floor(check.limit - used + 1e-9)),
      // Back to empty when this window's count has faded out of the next one.
      resetMs: Math.ceil(count > 0 ? toWindowEnd + window : w.prev > 0 ? toWindowEnd : 0),
      retryAfterMs,
      alert: false,
    },
  };
}

/** Settlement: real minus reserved, on this window's count (never below 0; debt up to one more window). */
export function adjustRate(check: LimitCheck, w: RateWindow, delta: number): RateState {
  return { index: w.index, prev: w.prev, count: Math.max(0, Math.min(2 * check.limit, w.count + delta)) };
}

export function budgetVerdict(check: LimitCheck, used: number, now: number): { verdict: LimitVerdict; after: number } {
  const resetMs = Math.max(0, (check.periodEndMs ?? now) - now);
  const allowed = check.limit > 0 && used < check.limit;
  const after = allowed ? used + check.amount : used;
  const alert = allowed && check.alertAt !== undefined && used < check.alertAt && after >= check.alertAt;
  return {
    after,
    verdict: { allowed, remaining: Math.max(0, check.limit - after), resetMs, retryAfterMs: allowed ? 0 : resetMs, alert },
  };
}
