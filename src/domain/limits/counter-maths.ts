// The counter rules, written once in TypeScript for the in-process store; the Redis Lua script
// (src/platform/redis-limit-store.ts) implements the same rules and the same tests run on both.
import type { LimitCheck, LimitVerdict } from './limit-store.ts';

export interface RateState {
  tokens: number;
  updatedMs: number;
}

/** The bucket refilled up to `now`. A missing bucket is full. */
export function refill(check: LimitCheck, state: RateState | undefined, now: number): number {
  const window = Math.max(1, check.windowMs ?? 1_000);
  if (!state) return check.limit;
  const elapsed = Math.max(0, now - state.updatedMs);
  return Math.min(check.limit, state.tokens + (elapsed * check.limit) / window);
}

export function rateVerdict(check: LimitCheck, tokens: number): { verdict: LimitVerdict; after: number } {
  const window = Math.max(1, check.windowMs ?? 1_000);
  if (check.limit <= 0) return { verdict: { allowed: false, remaining: 0, resetMs: window, retryAfterMs: window, alert: false }, after: tokens };
  const take = Math.min(check.amount, check.limit);
  const allowed = tokens >= take;
  const after = allowed ? tokens - take : tokens;
  const perMs = check.limit / window;
  return {
    after,
    verdict: {
      allowed,
      remaining: Math.max(0, Math.floor(after)),
      resetMs: Math.ceil((check.limit - after) / perMs),
      retryAfterMs: allowed ? 0 : Math.ceil((take - tokens) / perMs),
      alert: false,
    },
  };
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
