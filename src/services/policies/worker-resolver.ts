// What workers enforce (issue 8): every active policy of one organisation, in one payload. The
// resource_change trigger of migration 0009 writes `policy_set` / `<organisation_id>` on every
// policy write and on every hand reset of a counter, so a worker refetches exactly this.
import type { EntityManager } from '@mikro-orm/postgresql';
import { OrganisationSchema, RateLimitPolicySchema, UsageLimitPolicyEntitySchema, UsageLimitPolicySchema } from '../../persistence/entities/index.ts';
import { latestChangeVersion, type WorkerResolver } from '../sync/worker-resolver.ts';

export const POLICY_SET = 'policy_set';

export const policySetResolver: WorkerResolver = {
  type: POLICY_SET,
  async resolve(em: EntityManager, key: string) {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(key)) return null;
    const organisationId = key.toLowerCase();
    const org = await em.findOne(OrganisationSchema, { id: organisationId });
    if (!org) return null;
    // Version first: a change landing while we read gives a newer version the worker fetches again.
    const version = await latestChangeVersion(em, POLICY_SET, organisationId);
    const order = { orderBy: { createdAt: 'asc' as const, id: 'asc' as const } };
    const rate = await em.find(RateLimitPolicySchema, { organisationId, status: 'active' }, order);
    const usage = await em.find(UsageLimitPolicySchema, { organisationId, status: 'active' }, order);
    const resets = usage.length
      ? await em.find(UsageLimitPolicyEntitySchema, { policyId: { $in: usage.map((u) => u.id) }, resetAt: { $ne: null } }, { orderBy: { valueKey: 'asc' } })
      : [];
    return {
      version,
      payload: {
        organisation_id: organisationId,
        rate_limits: rate.map((p) => ({
          id: p.id,
          workspace_id: p.workspaceId,
          name: p.name ?? null,
          target: p.target,
          conditions: p.conditions,
          group_by: p.groupBy,
          type: p.type,
          unit: p.unit,
          value: Number(p.value),
        })),
        usage_limits: usage.map((p) => ({
          id: p.id,
          workspace_id: p.workspaceId,
          name: p.name ?? null,
          conditions: p.conditions,
          group_by: p.groupBy,
          type: p.type,
          credit_limit: Number(p.creditLimit),
          alert_threshold: p.alertThreshold == null ? null : Number(p.alertThreshold),
          periodic_reset: p.periodicReset ?? null,
          periodic_reset_days: p.periodicResetDays ?? null,
          next_usage_reset_at: p.nextUsageResetAt?.toISOString() ?? null,
          last_reset_at: p.lastResetAt?.toISOString() ?? null,
          /** Value keys zeroed by hand, and when: a worker's counter older than this starts again. */
          value_key_resets: Object.fromEntries(resets.filter((e) => e.policyId === p.id).map((e) => [e.valueKey, e.resetAt!.toISOString()])),
        })),
      },
    };
  },
};
