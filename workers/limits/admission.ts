// Admission (ARCHITECTURE.md request flow step 4): every limit that applies, one store call
// (one Redis round trip); refused requests get 429 with Retry-After and x-ratelimit-* headers.
// Reservations are settled to the real usage after the answer, off the request's path.
import { AppError } from '../../src/domain/errors.ts';
import type { LimitCheck, LimitStore, LimitVerdict } from '../../src/domain/limits/limit-store.ts';

export interface Admitted {
  /** x-ratelimit-* of the tightest request limit (empty without one). */
  headers: Record<string, string>;
  /** Settles reservations to what the request really used (tokens, USD). */
  settle(actual: { tokens: number; cost: number | null }): Promise<void>;
  /** Budget checks whose alert threshold this request crossed (once per period, fleet-wide). */
  alerts: LimitCheck[];
}

const NOTHING: Admitted = { headers: {}, settle: async () => {}, alerts: [] };

function rateHeaders(checks: LimitCheck[], verdicts: LimitVerdict[]): Record<string, string> {
  let best = -1;
  checks.forEach((c, i) => {
    if (c.kind !== 'rate' || c.measure !== 'requests') return;
    if (best < 0 || verdicts[i]!.remaining < verdicts[best]!.remaining) best = i;
  });
  if (best < 0) return {};
  const v = verdicts[best]!;
  return {
    'x-ratelimit-limit': String(checks[best]!.limit),
    'x-ratelimit-remaining': String(v.remaining),
    'x-ratelimit-reset': String(Math.ceil(v.resetMs / 1_000)),
  };
}

export async function admit(store: LimitStore, checks: LimitCheck[]): Promise<Admitted> {
  if (!checks.length) return NOTHING;
  const verdicts = await store.take(checks);
  const refused = verdicts.map((v, i) => ({ v, c: checks[i]! })).filter(({ v }) => !v.allowed);
  if (refused.length) {
    const budget = refused.find(({ c }) => c.kind === 'budget');
    const wait = Math.max(...refused.map(({ v }) => v.retryAfterMs));
    const err = budget
      ? new AppError(429, 'rate_limit_error', 'usage_limit_exceeded', `The usage limit (${budget.c.limit}) is used up until it resets.`)
      : new AppError(429, 'rate_limit_error', 'rate_limit_exceeded', 'Rate limit exceeded. Retry after the time in Retry-After.');
    err.headers = { 'retry-after': String(Math.max(1, Math.ceil(wait / 1_000))), ...rateHeaders(checks, verdicts) };
    if (!err.headers['x-ratelimit-limit']) {
      const first = refused[0]!;
      err.headers['x-ratelimit-limit'] = String(first.c.limit);
      err.headers['x-ratelimit-remaining'] = '0';
      err.headers['x-ratelimit-reset'] = String(Math.ceil(first.v.resetMs / 1_000));
    }
    throw err;
  }
  return {
    headers: rateHeaders(checks, verdicts),
    alerts: checks.filter((_, i) => verdicts[i]!.alert),
    async settle(actual) {
      const adjustments = checks
        .map((check) => {
          if (check.measure === 'requests') return null;
          const real = check.measure === 'tokens' ? actual.tokens : (actual.cost ?? 0);
          const reserved = check.kind === 'rate' ? Math.min(check.amount, check.limit) : check.amount;
          return { check, delta: real - reserved };
        })
        .filter((a): a is { check: LimitCheck; delta: number } => a !== null && a.delta !== 0);
      if (adjustments.length) await store.adjust(adjustments);
    },
  };
}
