import { z } from 'zod';
import { PERIODIC_RESETS, POLICY_STATUSES, RATE_LIMIT_TYPES, RATE_LIMIT_UNITS, USAGE_LIMIT_TYPES } from '../../domain/policies/limits.ts';
import { POLICY_TARGETS } from '../../domain/policies/conditions.ts';

// Request bodies of /policies/rate-limits and /policies/usage-limits (control-plane-schemas 2.11,
// 2.12; gateway-spec: `target`, `conditions` on update, usage type `requests`). `conditions` and
// `group_by` are taken as given here and checked against the policy (conditionsSchema) afterwards,
// because which keys are valid depends on the policy's kind and target.

const name = z.string().trim().min(1).max(255).nullable().optional();
const amount = z.number().finite().min(0);

export const createRateLimitPolicySchema = z.strictObject({
  name,
  target: z.enum(POLICY_TARGETS).optional(),
  conditions: z.unknown(),
  group_by: z.unknown(),
  type: z.enum(RATE_LIMIT_TYPES),
  unit: z.enum(RATE_LIMIT_UNITS),
  value: amount,
  workspace_id: z.string().min(1).optional(),
  organisation_id: z.uuid().optional(),
});

export const updateRateLimitPolicySchema = z.strictObject({
  name,
  unit: z.enum(RATE_LIMIT_UNITS).optional(),
  value: amount.optional(),
  conditions: z.unknown().optional(),
});

export const createUsageLimitPolicySchema = z.strictObject({
  name,
  conditions: z.unknown(),
  group_by: z.unknown(),
  type: z.enum(USAGE_LIMIT_TYPES),
  credit_limit: amount,
  alert_threshold: amount.nullable().optional(),
  periodic_reset: z.enum(PERIODIC_RESETS).nullable().optional(),
  /** Of the policy object (2.12); mutually exclusive with periodic_reset (1.5 UsageLimits). */
  periodic_reset_days: z.number().int().min(1).max(365).nullable().optional(),
  workspace_id: z.string().min(1).optional(),
  organisation_id: z.uuid().optional(),
});

export const updateUsageLimitPolicySchema = z.strictObject({
  name,
  credit_limit: amount.optional(),
  alert_threshold: amount.nullable().optional(),
  periodic_reset: z.enum(PERIODIC_RESETS).nullable().optional(),
  periodic_reset_days: z.number().int().min(1).max(365).nullable().optional(),
  /** Zero the counter of one value key (e.g. `api_key:<id>`). */
  reset_usage_for_value: z.string().min(1).max(1024).optional(),
  conditions: z.unknown().optional(),
});

export const policyStatusSchema = z.enum(POLICY_STATUSES);

export type CreateRateLimitPolicyInput = z.output<typeof createRateLimitPolicySchema>;
export type CreateUsageLimitPolicyInput = z.output<typeof createUsageLimitPolicySchema>;
