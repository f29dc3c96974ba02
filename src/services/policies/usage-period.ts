import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../domain/errors.ts';
import { nextUsageResetAt, type PeriodicReset } from '../../domain/policies/limits.ts';
import { UsageLimitPolicyEntitySchema, UsageLimitPolicySchema } from '../../persistence/entities/index.ts';
import type { UsageLimitPolicy } from '../../persistence/entities/usage-limit-policy.ts';

/**
 * Periodic reset of a usage-limit policy (control-plane-schemas 2.12 `periodic_reset`): once
 * `next_usage_reset_at` has passed, every tracked counter starts again from zero, `last_reset_at`
 * becomes the boundary passed and `next_usage_reset_at` the one after. Done lazily, whenever usage
 * is read or accrued, in one transaction (the policy row lock serialises concurrent rollers).
 */
export async function rollUsagePeriod(em: EntityManager, policyId: string, now = new Date()): Promise<UsageLimitPolicy> {
  return em.transactional(async (tx) => {
    const p = await tx.findOne(UsageLimitPolicySchema, { id: policyId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (!p) throw notFound('Usage limit policy', 'id');
    if (!p.nextUsageResetAt || p.nextUsageResetAt > now) return p;
    const reset = { periodic_reset: (p.periodicReset ?? null) as PeriodicReset | null, periodic_reset_days: p.periodicResetDays ?? null };
    let boundary = p.nextUsageResetAt;
    let next = nextUsageResetAt(reset, boundary);
    while (next && next <= now) {
      boundary = next;
      next = nextUsageResetAt(reset, boundary);
    }
    p.lastResetAt = boundary;
    p.nextUsageResetAt = next;
    await tx.nativeUpdate(UsageLimitPolicyEntitySchema, { policyId: p.id }, { currentUsage: 0, status: 'active', isThresholdAlertsSent: false, isExhaustedAlertsSent: false });
    await tx.flush();
    return p;
  });
}

/**
 * Adds usage (cost in USD, tokens or requests, by the policy's type) to one value key's counter
 * and marks it exhausted at the credit limit. Called by usage ingestion (issue 8) for every active
 * policy a reported request matched; the shared counters workers enforce with live in Redis, this
 * is the control plane's record behind `include_usage` and `/entities`.
 */
export async function accruePolicyUsage(em: EntityManager, policyId: string, valueKey: string, amount: number, now = new Date()): Promise<void> {
  if (!Number.isFinite(amount) || amount < 0) throw new RangeError(`usage amount must be a non-negative number, got ${amount}`);
  await em.transactional(async (tx) => {
    const p = await rollUsagePeriod(tx, policyId, now);
    if (p.status !== 'active') return;
    await tx.execute(
      `insert into usage_limit_policy_entity (id, policy_id, value_key, current_usage, status)
         values (?, ?, ?, ?, case when ?::numeric >= ?::numeric then 'exhausted' else 'active' end)
       on conflict (policy_id, value_key) do update set
         current_usage = usage_limit_policy_entity.current_usage + excluded.current_usage,
         status = case when usage_limit_policy_entity.current_usage + excluded.current_usage >= ?::numeric then 'exhausted' else 'active' end,
         updated_at = now()`,
      [crypto.randomUUID(), p.id, valueKey, amount, amount, p.creditLimit, p.creditLimit],
    );
  });
}
