// Shared counters for rate limits and budgets (issue 8; ARCHITECTURE.md Storage): Redis in
// production (one Lua script per hash tag, all tags in one pipelined round trip), an in-process
// implementation in the embedded default and as the fail-open fallback.

/**
 * One counter a request must pass.
 * - `rate`: a sliding window of `windowMs`: this window's count plus the previous window's,
 *   weighted by how much of it the last `windowMs` still covers, must stay within `limit` (so a
 *   burst inside one window admits at most `limit`, however long it lasts); `amount` is 1 for
 *   request limits, the reserved tokens for token limits (capped at `limit`, so a large request
 *   can ever pass).
 * - `budget`: spend within a period ending at `periodEndMs`; admitted while the spend is below
 *   `limit`, then `amount` (the request's estimated cost or tokens, never the whole remaining
 *   budget) is reserved and later settled to the real figure.
 */
export interface LimitCheck {
  /** The counter's key; `{...}` marks the Redis Cluster hash tag (e.g. `rl:{ak:<id>}:requests:rpm`). */
  key: string;
  kind: 'rate' | 'budget';
  /** What is counted: settlement replaces the reservation by the real figure of this measure. */
  measure: 'requests' | 'tokens' | 'cost';
  limit: number;
  /** rate: refill period. */
  windowMs?: number;
  /** budget: epoch ms when the period ends (the counter expires then). */
  periodEndMs?: number;
  amount: number;
  /** budget: crossing this spend reports `alert` once per period. */
  alertAt?: number;
}

export interface LimitVerdict {
  allowed: boolean;
  /** What is left after this request (rate: whole units; budget: limit - spend). */
  remaining: number;
  /** ms until the counter is back to empty (rate) or the period ends (budget). */
  resetMs: number;
  /** When refused: ms until the request could pass. */
  retryAfterMs: number;
  /** budget: this request crossed `alertAt` (true for one request per period). */
  alert: boolean;
}

export interface LimitAdjustment {
  check: LimitCheck;
  /** Added to what was taken: real minus reserved (negative gives back). */
  delta: number;
}

export interface LimitStore {
  readonly kind: 'redis' | 'memory';
  /**
   * Checks every counter and, only if all allow, takes `amount` from each (atomically per hash
   * tag; a refusal in one tag gives back what the others took). Verdicts in `checks` order.
   */
  take(checks: LimitCheck[]): Promise<LimitVerdict[]>;
  /** Settles reservations after the answer (off the request's path). */
  adjust(adjustments: LimitAdjustment[]): Promise<void>;
  close(): Promise<void>;
}

/** The hash tag of a key (`{...}`, Redis Cluster's rule: the first `{` and the next `}`), or the whole key. */
export function hashTagOf(key: string): string {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) return key.slice(open + 1, close);
  }
  return key;
}
