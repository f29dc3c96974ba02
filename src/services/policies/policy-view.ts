import type { PolicyCondition, PolicyGroupBy } from '../../domain/policies/conditions.ts';
import type { RateLimitPolicy } from '../../persistence/entities/rate-limit-policy.ts';
import type { UsageLimitPolicy, UsageLimitPolicyEntity } from '../../persistence/entities/usage-limit-policy.ts';

// Policy objects (control-plane-schemas 2.11, 2.12). `object` names the kind, as the create answer does.
export const RATE_LIMIT_OBJECT = 'policy_rate_limits';
export const USAGE_LIMIT_OBJECT = 'policy_usage_limits';

export interface RateLimitPolicyView {
  id: string;
  name: string | null;
  target: string;
  conditions: PolicyCondition[];
  group_by: PolicyGroupBy[];
  type: string;
  unit: string;
  value: number;
  status: string;
  workspace_id: string;
  organisation_id: string;
  created_at: string;
  last_updated_at: string;
  object: typeof RATE_LIMIT_OBJECT;
}

export interface ValueKeyUsage {
  current_usage: number;
  status: string;
  is_threshold_alerts_sent: boolean;
  is_exhausted_alerts_sent: boolean;
}

export interface UsageLimitPolicyView {
  id: string;
  name: string | null;
  conditions: PolicyCondition[];
  group_by: PolicyGroupBy[];
  type: string;
  credit_limit: number;
  alert_threshold: number | null;
  periodic_reset: string | null;
  periodic_reset_days: number | null;
  next_usage_reset_at: string | null;
  last_reset_at: string | null;
  status: string;
  workspace_id: string;
  organisation_id: string;
  created_at: string;
  last_updated_at: string;
  /** Only with `include_usage=true`. */
  value_key_usage_map: Record<string, ValueKeyUsage> | null;
  object: typeof USAGE_LIMIT_OBJECT;
}

export interface PolicyEntityView {
  id: string;
  value_key: string;
  current_usage: number;
  status: string;
}

const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

export function toRateLimitPolicyView(p: RateLimitPolicy): RateLimitPolicyView {
  return {
    id: p.id,
    name: p.name ?? null,
    target: p.target,
    conditions: p.conditions,
    group_by: p.groupBy,
    type: p.type,
    unit: p.unit,
    value: Number(p.value),
    status: p.status,
    workspace_id: p.workspaceId,
    organisation_id: p.organisationId,
    created_at: p.createdAt.toISOString(),
    last_updated_at: p.updatedAt.toISOString(),
    object: RATE_LIMIT_OBJECT,
  };
}

export function toUsageLimitPolicyView(p: UsageLimitPolicy, entities: UsageLimitPolicyEntity[] | null = null): UsageLimitPolicyView {
  return {
    id: p.id,
    name: p.name ?? null,
    conditions: p.conditions,
    group_by: p.groupBy,
    type: p.type,
    credit_limit: Number(p.creditLimit),
    alert_threshold: p.alertThreshold === null || p.alertThreshold === undefined ? null : Number(p.alertThreshold),
    periodic_reset: p.periodicReset ?? null,
    periodic_reset_days: p.periodicResetDays ?? null,
    next_usage_reset_at: iso(p.nextUsageResetAt),
    last_reset_at: iso(p.lastResetAt),
    status: p.status,
    workspace_id: p.workspaceId,
    organisation_id: p.organisationId,
    created_at: p.createdAt.toISOString(),
    last_updated_at: p.updatedAt.toISOString(),
    value_key_usage_map: entities
      ? Object.fromEntries(
          entities.map((e) => [
            e.valueKey,
            { current_usage: Number(e.currentUsage), status: e.status, is_threshold_alerts_sent: e.isThresholdAlertsSent, is_exhausted_alerts_sent: e.isExhaustedAlertsSent },
          ]),
        )
      : null,
    object: USAGE_LIMIT_OBJECT,
  };
}

export const toPolicyEntityView = (e: UsageLimitPolicyEntity): PolicyEntityView => ({ id: e.id, value_key: e.valueKey, current_usage: Number(e.currentUsage), status: e.status });
