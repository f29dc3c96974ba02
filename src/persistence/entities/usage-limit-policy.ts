import { defineEntity, type InferEntity } from '@mikro-orm/core';
import type { PolicyCondition, PolicyGroupBy } from '../../domain/policies/conditions.ts';

/** A usage-limit (budget) policy (control-plane-schemas 2.12). */
export const UsageLimitPolicySchema = defineEntity({
  name: 'UsageLimitPolicy',
  tableName: 'usage_limit_policy',
  properties: (p) => ({
    id: p.uuid().primary(),
    organisationId: p.uuid(),
    workspaceId: p.uuid(),
    name: p.string().nullable(),
    conditions: p.json<PolicyCondition[]>(),
    groupBy: p.json<PolicyGroupBy[]>(),
    /** cost | tokens | requests. */
    type: p.string(),
    creditLimit: p.decimal('number'),
    alertThreshold: p.decimal('number').nullable(),
    periodicReset: p.string().nullable(),
    periodicResetDays: p.integer().nullable(),
    nextUsageResetAt: p.datetime().nullable(),
    lastResetAt: p.datetime().nullable(),
    /** active | archived (a delete archives; archived policies are skipped by workers). */
    status: p.string().default('active'),
    createdBy: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type UsageLimitPolicy = InferEntity<typeof UsageLimitPolicySchema>;

/** The tracked usage of one value key of a usage-limit policy. */
export const UsageLimitPolicyEntitySchema = defineEntity({
  name: 'UsageLimitPolicyEntity',
  tableName: 'usage_limit_policy_entity',
  properties: (p) => ({
    id: p.uuid().primary(),
    policyId: p.uuid(),
    valueKey: p.string(),
    currentUsage: p.decimal('number').default(0),
    /** active | exhausted. */
    status: p.string().default('active'),
    isThresholdAlertsSent: p.boolean().default(false),
    isExhaustedAlertsSent: p.boolean().default(false),
    resetAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type UsageLimitPolicyEntity = InferEntity<typeof UsageLimitPolicyEntitySchema>;
