import { defineEntity, type InferEntity } from '@mikro-orm/core';
import type { PolicyCondition, PolicyGroupBy } from '../../domain/policies/conditions.ts';

/** A rate-limit policy (control-plane-schemas 2.11; gateway-spec: `target` llm | mcp_tools). */
export const RateLimitPolicySchema = defineEntity({
  name: 'RateLimitPolicy',
  tableName: 'rate_limit_policy',
  properties: (p) => ({
    id: p.uuid().primary(),
    organisationId: p.uuid(),
    workspaceId: p.uuid(),
    name: p.string().nullable(),
    target: p.string().default('llm'),
    conditions: p.json<PolicyCondition[]>(),
    groupBy: p.json<PolicyGroupBy[]>(),
    type: p.string(),
    unit: p.string(),
    value: p.decimal('number'),
    /** active | archived (a delete archives). */
    status: p.string().default('active'),
    createdBy: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type RateLimitPolicy = InferEntity<typeof RateLimitPolicySchema>;
