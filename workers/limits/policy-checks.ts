// Rate-limit and usage-limit policies as counters (issue 8 item 2 and 3; control-plane-schemas
// 2.11, 2.12; gateway-spec Limits). The organisation's `policy_set` (src/services/policies/
// worker-resolver.ts) holds only active policies; each one whose conditions match the request
// counts it under its group-by value key, one hash tag per policy + value key.
import type { LimitCheck } from '../../src/domain/limits/limit-store.ts';
import { policyMatchesRequest, valueKeyOf, type PolicyCondition, type PolicyGroupBy, type RequestFacts } from '../../src/domain/policies/conditions.ts';
import { unitWindowMs, type RateLimitUnit } from '../../src/domain/policies/limits.ts';
import { budgetPeriodEnd, type UsageEstimate } from './key-checks.ts';

export interface RateLimitPolicy {
  id: string;
  workspace_id: string;
  target: 'llm' | 'mcp_tools';
  conditions: PolicyCondition[];
  group_by: PolicyGroupBy[];
  type: 'requests' | 'tokens';
  unit: RateLimitUnit;
  value: number;
}

export interface UsageLimitPolicy {
  id: string;
  workspace_id: string;
  conditions: PolicyCondition[];
  group_by: PolicyGroupBy[];
  type: 'cost' | 'tokens' | 'requests';
  credit_limit: number;
  alert_threshold: number | null;
  periodic_reset: 'monthly' | 'weekly' | null;
  periodic_reset_days: number | null;
  next_usage_reset_at: string | null;
  last_reset_at: string | null;
  /** Value keys zeroed by hand, and when (ISO). */
  value_key_resets: Record<string, string>;
}

export interface PolicySet {
  rate_limits: RateLimitPolicy[];
  usage_limits: UsageLimitPolicy[];
}

/** A value key inside a Redis hash tag: braces (which would end the tag) and other bytes escaped. */
const tagSafe = (s: string) => encodeURIComponent(s);

/** Epoch ms of the latest hand reset that concerns this value key (0: never reset). */
function resetEpoch(p: UsageLimitPolicy, valueKey: string): number {
  const at = [p.last_reset_at, p.value_key_resets?.[valueKey]].map((v) => (v ? Date.parse(v) : NaN)).filter(Number.isFinite);
  return at.length ? Math.max(...at) : 0;
}

/**
 * The counters of every policy that applies to an LLM request. Rate-limit policies with target
 * `mcp_tools` belong to the MCP gateway and are skipped here.
 */
export function policyChecks(set: PolicySet | null, facts: RequestFacts, estimate: UsageEstimate, now: number): LimitCheck[] {
  if (!set) return [];
  const checks: LimitCheck[] = [];
  for (const p of set.rate_limits ?? []) {
    if (p.target !== 'llm' || !policyMatchesRequest(p, facts)) continue;
    const valueKey = valueKeyOf(p.group_by, facts);
    if (valueKey === null) continue;
    checks.push({
      key: `rl:{pol:${p.id}:${tagSafe(valueKey)}}:${p.type}:${p.unit}`,
      kind: 'rate',
      measure: p.type,
      limit: p.value,
      windowMs: unitWindowMs(p.unit),
      amount: p.type === 'tokens' ? Math.max(1, estimate.tokens) : 1,
    });
  }
  for (const p of set.usage_limits ?? []) {
    if (!policyMatchesRequest(p, facts)) continue;
    const valueKey = valueKeyOf(p.group_by, facts);
    if (valueKey === null) continue;
    const periodEndMs = budgetPeriodEnd({ ...p, type: null }, now);
    // A hand reset names a fresh counter: the old one is left to expire with its period.
    const epoch = resetEpoch(p, valueKey);
    checks.push({
      key: `bud:{pul:${p.id}:${tagSafe(valueKey)}}:${p.type}:${periodEndMs}:${epoch}`,
      kind: 'budget',
      measure: p.type,
      limit: p.credit_limit,
      periodEndMs,
      amount: p.type === 'requests' ? 1 : p.type === 'tokens' ? estimate.tokens : (estimate.cost ?? 0),
      ...(p.alert_threshold != null ? { alertAt: p.alert_threshold } : {}),
    });
  }
  return checks;
}
