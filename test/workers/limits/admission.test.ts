import { describe, it, expect } from 'vitest';
import type { ResolvedKey } from '../../../src/domain/api-key.ts';
import { AppError } from '../../../src/domain/errors.ts';
import { MemoryLimitStore } from '../../../src/domain/limits/memory-limit-store.ts';
import { admit } from '../../../workers/limits/admission.ts';
import { budgetPeriodEnd, estimateTokens, keyChecks } from '../../../workers/limits/key-checks.ts';

const key = (over: Partial<ResolvedKey> = {}): ResolvedKey => ({
  id: `k-${Math.random().toString(36).slice(2)}`,
  organisationId: 'o',
  workspaceId: 'w',
  userId: null,
  type: 'workspace-service',
  status: 'active',
  scopes: [],
  expiresAt: null,
  rateLimits: [],
  usageLimits: null,
  defaults: {},
  version: 1,
  ...over,
});

describe('keyChecks', () => {
  it('makes one hash-tagged counter per rate-limit entry and one budget for usage limits', () => {
    const k = key({
      rateLimits: [
        { type: 'requests', unit: 'rpm', value: 100 },
        { type: 'tokens', unit: 'rph', value: 50_000 },
      ],
      usageLimits: { credit_limit: 10, type: 'cost', alert_threshold: 8, periodic_reset: 'monthly' },
    });
    const now = Date.UTC(2026, 10, 22, 12);
    const checks = keyChecks(k, { tokens: 700, cost: 0.02 }, now);
    expect(checks).toEqual([
      { key: `rl:{ak:${k.id}}:requests:rpm`, kind: 'rate', measure: 'requests', limit: 100, windowMs: 60_000, amount: 1 },
      { key: `rl:{ak:${k.id}}:tokens:rph`, kind: 'rate', measure: 'tokens', limit: 50_000, windowMs: 3_600_000, amount: 700 },
      { key: `bud:{ak:${k.id}}:cost:${Date.UTC(2026, 11, 1)}`, kind: 'budget', measure: 'cost', limit: 10, periodEndMs: Date.UTC(2026, 11, 1), amount: 0.02, alertAt: 8 },
    ]);
  });

  it('ends budget periods at next_usage_reset_at, the next Monday, the next month, or N-day boundaries', () => {
    const now = Date.UTC(2026, 10, 22, 12); // a Sunday
    expect(budgetPeriodEnd({ credit_limit: 1, next_usage_reset_at: '2026-12-05T00:00:00Z' }, now)).toBe(Date.UTC(2026, 11, 5));
    expect(budgetPeriodEnd({ credit_limit: 1, periodic_reset: 'weekly' }, now)).toBe(Date.UTC(2026, 10, 23));
    expect(new Date(budgetPeriodEnd({ credit_limit: 1, periodic_reset: 'weekly' }, now)).getUTCDay()).toBe(1);
    expect(budgetPeriodEnd({ credit_limit: 1, periodic_reset: 'monthly' }, now)).toBe(Date.UTC(2026, 11, 1));
    const tenDays = budgetPeriodEnd({ credit_limit: 1, periodic_reset_days: 10 }, now);
    expect(tenDays % (10 * 86_400_000)).toBe(0);
    expect(tenDays).toBeGreaterThan(now);
    expect(tenDays - now).toBeLessThanOrEqual(10 * 86_400_000);
    expect(budgetPeriodEnd({ credit_limit: 1 }, now)).toBe(Date.UTC(9999, 0, 1));
  });

  it('estimates tokens from the text and the completion allowance', () => {
    expect(estimateTokens({ messages: [{ role: 'user', content: 'x'.repeat(400) }], max_tokens: 50 })).toBe(150);
    expect(estimateTokens({ input: ['abcd', 'efgh'] }, 0)).toBe(2);
    expect(estimateTokens({ messages: [{ role: 'user', content: [{ type: 'text', text: 'y'.repeat(40) }] }] }, 10)).toBe(20);
  });
});

describe('admit', () => {
  it('answers x-ratelimit-* headers, then refuses with 429, Retry-After and the same headers', async () => {
    // 15 s into a minute: the sliding window is empty again 45 + 60 s later.
    const now = Date.UTC(2026, 10, 22, 12, 0, 15);
    const store = new MemoryLimitStore(() => now);
    const k = key({ rateLimits: [{ type: 'requests', unit: 'rpm', value: 2 }] });
    const first = await admit(store, keyChecks(k, { tokens: 10, cost: null }, Date.now()));
    expect(first.headers).toEqual({ 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': '105' });
    await admit(store, keyChecks(k, { tokens: 10, cost: null }, Date.now()));
    const err = await admit(store, keyChecks(k, { tokens: 10, cost: null }, Date.now())).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    const e = err as AppError;
    expect([e.status, e.code, e.type]).toEqual([429, 'rate_limit_exceeded', 'rate_limit_error']);
    // Room for one more when half of this minute's 2 has faded in the next: 45 + 30 s.
    expect(e.headers).toMatchObject({ 'retry-after': '75', 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '0' });
  });

  it('refuses an exhausted budget with usage_limit_exceeded until the period ends, and reports the alert once', async () => {
    const store = new MemoryLimitStore();
    const k = key({ usageLimits: { credit_limit: 100, type: 'tokens', alert_threshold: 60 } });
    const a = await admit(store, keyChecks(k, { tokens: 50, cost: null }, Date.now()));
    expect(a.alerts).toHaveLength(0);
    await a.settle({ tokens: 50, cost: null });
    const b = await admit(store, keyChecks(k, { tokens: 20, cost: null }, Date.now()));
    expect(b.alerts).toHaveLength(1);
    // Real use was 60, not 20: the budget is at 110, over the limit.
    await b.settle({ tokens: 60, cost: null });
    const err = (await admit(store, keyChecks(k, { tokens: 1, cost: null }, Date.now())).catch((e: unknown) => e)) as AppError;
    expect([err.status, err.code]).toEqual([429, 'usage_limit_exceeded']);
    expect(Number(err.headers!['retry-after'])).toBeGreaterThan(86_400);
  });

  it('settles token reservations to the real count', async () => {
    const store = new MemoryLimitStore();
    const k = key({ rateLimits: [{ type: 'tokens', unit: 'rpm', value: 1_000 }] });
    const a = await admit(store, keyChecks(k, { tokens: 900, cost: null }, Date.now()));
    await a.settle({ tokens: 100, cost: null });
    // 900 reserved, 100 used: 900 left, so an 850-token request passes.
    await expect(admit(store, keyChecks(k, { tokens: 850, cost: null }, Date.now()))).resolves.toBeDefined();
  });

  it('admits a key without limits without touching the store', async () => {
    const store = { kind: 'memory' as const, take: () => Promise.reject(new Error('no')), adjust: () => Promise.reject(new Error('no')), close: async () => {} };
    await expect(admit(store, keyChecks(key(), { tokens: 1, cost: null }, Date.now()))).resolves.toMatchObject({ headers: {} });
  });
});
