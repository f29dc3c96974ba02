// Issue 8 item 2 and 3: which policies count a request, under which counter.
import { describe, it, expect } from 'vitest';
import { hashTagOf } from '../../../src/domain/limits/limit-store.ts';
import { MemoryLimitStore } from '../../../src/domain/limits/memory-limit-store.ts';
import { admit } from '../../../workers/limits/admission.ts';
import { policyChecks, type PolicySet, type RateLimitPolicy, type UsageLimitPolicy } from '../../../workers/limits/policy-checks.ts';

const WS = '11111111-1111-4111-8111-111111111111';
const facts = (over: Record<string, unknown> = {}) => ({ api_key: 'key-1', organisation_id: 'org-1', workspace_id: WS, metadata: { _user: 'alice', team: 'ml' }, ...over });
const estimate = { tokens: 500, cost: 0.02 };
const NOW = Date.UTC(2026, 10, 22, 12);

const rate = (over: Partial<RateLimitPolicy> = {}): RateLimitPolicy => ({
  id: 'rp1', workspace_id: WS, target: 'llm', conditions: [{ key: 'workspace_id', value: '*' }], group_by: [{ key: 'api_key' }], type: 'requests', unit: 'rpm', value: 100, ...over,
});
const usage = (over: Partial<UsageLimitPolicy> = {}): UsageLimitPolicy => ({
  id: 'up1', workspace_id: WS, conditions: [{ key: 'metadata.team', value: ['ml', 'infra'] }], group_by: [{ key: 'metadata._user' }], type: 'cost', credit_limit: 50,
  alert_threshold: 40, periodic_reset: 'monthly', periodic_reset_days: null, next_usage_reset_at: null, last_reset_at: null, value_key_resets: {}, ...over,
});
const set = (r: RateLimitPolicy[], u: UsageLimitPolicy[] = []): PolicySet => ({ rate_limits: r, usage_limits: u });

describe('policyChecks', () => {
  it('turns a matching rate-limit policy into a counter per policy and value key, hash-tagged', () => {
    const [c] = policyChecks(set([rate()]), facts(), estimate, NOW);
    expect(c).toMatchObject({ kind: 'rate', measure: 'requests', limit: 100, windowMs: 60_000, amount: 1 });
    expect(hashTagOf(c!.key)).toBe('pol:rp1:api_key%3Akey-1');
    // Another key lands in another counter (and tag).
    const [d] = policyChecks(set([rate()]), facts({ api_key: 'key-2' }), estimate, NOW);
    expect(d!.key).not.toBe(c!.key);
  });

  it('reserves the estimated tokens for token policies', () => {
    const [c] = policyChecks(set([rate({ type: 'tokens', unit: 'rph', value: 10_000 })]), facts(), estimate, NOW);
    expect(c).toMatchObject({ measure: 'tokens', amount: 500, windowMs: 3_600_000 });
  });

  it('skips mcp_tools policies, other workspaces, unmet conditions and requests without the group-by fact', () => {
    expect(policyChecks(set([rate({ target: 'mcp_tools' })]), facts(), estimate, NOW)).toEqual([]);
    expect(policyChecks(set([rate({ workspace_id: '22222222-2222-4222-8222-222222222222' })]), facts(), estimate, NOW)).toEqual([]);
    expect(policyChecks(set([rate({ conditions: [{ key: 'metadata.team', value: 'infra' }] })]), facts(), estimate, NOW)).toEqual([]);
    expect(policyChecks(set([rate({ group_by: [{ key: 'metadata.project' }] })]), facts(), estimate, NOW)).toEqual([]);
    expect(policyChecks(null, facts(), estimate, NOW)).toEqual([]);
  });

  it('keeps value keys with braces inside one hash tag', () => {
    const [c] = policyChecks(set([rate({ group_by: [{ key: 'metadata._user' }] })]), facts({ metadata: { _user: 'a}b{c' } }), estimate, NOW);
    expect(hashTagOf(c!.key)).toBe('pol:rp1:metadata._user%3Aa%7Db%7Bc');
  });

  it('turns usage-limit policies into budgets: cost, tokens or one request, with the alert threshold and the period', () => {
    const [cost] = policyChecks(set([], [usage()]), facts(), estimate, NOW);
    expect(cost).toMatchObject({ kind: 'budget', measure: 'cost', limit: 50, alertAt: 40, amount: 0.02, periodEndMs: Date.UTC(2026, 11, 1) });
    const [tokens] = policyChecks(set([], [usage({ type: 'tokens', alert_threshold: null })]), facts(), estimate, NOW);
    expect(tokens).toMatchObject({ measure: 'tokens', amount: 500 });
    expect(tokens!.alertAt).toBeUndefined();
    const [reqs] = policyChecks(set([], [usage({ type: 'requests' })]), facts(), estimate, NOW);
    expect(reqs).toMatchObject({ measure: 'requests', amount: 1 });
  });

  it('starts a fresh counter after a hand reset of the value key (value_key_resets), not for other value keys', () => {
    const before = policyChecks(set([], [usage()]), facts(), estimate, NOW)[0]!.key;
    const reset = usage({ value_key_resets: { 'metadata._user:alice': '2026-11-22T11:00:00.000Z' } });
    const after = policyChecks(set([], [reset]), facts(), estimate, NOW)[0]!.key;
    expect(after).not.toBe(before);
    const bob = facts({ metadata: { _user: 'bob', team: 'ml' } });
    expect(policyChecks(set([], [reset]), bob, estimate, NOW)[0]!.key).toBe(policyChecks(set([], [usage()]), bob, estimate, NOW)[0]!.key);
  });

  it('a used-up policy budget refuses with usage_limit_exceeded until a hand reset', async () => {
    const store = new MemoryLimitStore(() => NOW);
    const p = usage({ type: 'requests', credit_limit: 2, alert_threshold: null });
    for (let i = 0; i < 2; i++) await admit(store, policyChecks(set([], [p]), facts(), estimate, NOW));
    await expect(admit(store, policyChecks(set([], [p]), facts(), estimate, NOW))).rejects.toMatchObject({ status: 429, code: 'usage_limit_exceeded' });
    const reset = { ...p, value_key_resets: { 'metadata._user:alice': new Date(NOW - 1).toISOString() } };
    await expect(admit(store, policyChecks(set([], [reset]), facts(), estimate, NOW))).resolves.toBeTruthy();
  });
});
