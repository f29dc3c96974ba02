import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** One saved state of a guardrail; `PUT /guardrails/{id}` answers the new one's id. */
export const GuardrailVersionSchema = defineEntity({
  name: 'GuardrailVersion',
  tableName: 'guardrail_version',
  properties: (p) => ({
    id: p.uuid().primary(),
    guardrailId: p.uuid(),
    version: p.integer(),
    name: p.string(),
    checks: p.json<Record<string, unknown>[]>(),
    actions: p.json<Record<string, unknown>>(),
    createdBy: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  }),
});
export type GuardrailVersion = InferEntity<typeof GuardrailVersionSchema>;
