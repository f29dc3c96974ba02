// The counters one request must pass for its API key (issue 8 items 1 and 3). Keys are
// hash-tagged by the API key id, so Redis Cluster keeps one key's counters on one slot.
import type { RateLimit, ResolvedKey, UsageLimits } from '../../src/domain/api-key.ts';
import type { LimitCheck } from '../../src/domain/limits/limit-store.ts';

const DAY = 86_400_000;
export const UNIT_MS: Record<RateLimit['unit'], number> = { rps: 1_000, rpm: 60_000, rph: 3_600_000, rpd: DAY, rpw: 7 * DAY };

/** What a request is expected to use, reserved before it goes upstream and settled after. */
export interface UsageEstimate {
  tokens: number;
  /** USD; null when the model has no price (cost budgets then count nothing for it). */
  cost: number | null;
}

/** The budget period containing `now`: ends at next_usage_reset_at when set, else at the calendar boundary. */
export function budgetPeriodEnd(u: UsageLimits, now: number): number {
  const anchor = u.next_usage_reset_at ? Date.parse(u.next_usage_reset_at) : NaN;
  if (Number.isFinite(anchor) && anchor > now) return anchor;
  if (u.periodic_reset_days) {
    const len = u.periodic_reset_days * DAY;
    return Math.floor(now / len) * len + len;
  }
  if (u.periodic_reset === 'weekly') {
    // Monday 00:00 UTC (1970-01-01 was a Thursday: shift by 3 days).
    const shifted = now + 3 * DAY;
    return Math.floor(shifted / (7 * DAY)) * 7 * DAY + 7 * DAY - 3 * DAY;
  }
  if (u.periodic_reset === 'monthly') {
    const d = new Date(now);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  }
  return Date.UTC(9999, 0, 1); // no reset: one period for the key's life
}

export function keyChecks(key: ResolvedKey, estimate: UsageEstimate, now: number): LimitCheck[] {
  const tag = `{ak:${key.id}}`;
  const checks: LimitCheck[] = key.rateLimits.map((r) => ({
    key: `rl:${tag}:${r.type}:${r.unit}`,
    kind: 'rate',
    measure: r.type,
    limit: r.value,
    windowMs: UNIT_MS[r.unit],
    amount: r.type === 'tokens' ? Math.max(1, estimate.tokens) : 1,
  }));
  const u = key.usageLimits;
  if (u?.credit_limit != null) {
    const type = u.type ?? 'cost';
    const periodEndMs = budgetPeriodEnd(u, now);
    // A hand reset (reset_usage) names a fresh counter; the old one expires with its period.
    const resetAt = u.last_reset_at ? Date.parse(u.last_reset_at) : NaN;
    checks.push({
      key: `bud:${tag}:${type}:${periodEndMs}${Number.isFinite(resetAt) ? `:${resetAt}` : ''}`,
      kind: 'budget',
      measure: type,
      limit: u.credit_limit,
      periodEndMs,
      amount: type === 'tokens' ? estimate.tokens : (estimate.cost ?? 0),
      ...(u.alert_threshold != null ? { alertAt: u.alert_threshold } : {}),
    });
  }
  return checks;
}

/** Rough tokens of a chat/completions/embeddings body: ~4 characters a token, plus the completion allowance. */
export function estimateTokens(body: Record<string, unknown> | null, defaultCompletion = 256): number {
  if (!body) return 1;
  let chars = 0;
  const add = (v: unknown): void => {
    if (typeof v === 'string') chars += v.length;
    else if (Array.isArray(v)) v.forEach(add);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) if (k === 'content' || k === 'text' || k === 'input' || k === 'prompt' || k === 'messages') add(x);
  };
  add(body.messages ?? body.prompt ?? body.input);
  const max = [body.max_completion_tokens, body.max_tokens, body.max_output_tokens].find((v) => typeof v === 'number' && v >= 0) as number | undefined;
  return Math.ceil(chars / 4) + (max ?? defaultCompletion);
}
