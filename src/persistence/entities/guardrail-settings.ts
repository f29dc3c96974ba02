import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** The organisation's default input/output guardrails (ordered guardrail ids). */
export const OrganisationGuardrailDefaultsSchema = defineEntity({
  name: 'OrganisationGuardrailDefaults',
  tableName: 'organisation_guardrail_defaults',
  properties: (p) => ({
    organisationId: p.uuid().primary(),
    inputGuardrails: p.json<string[]>(),
    outputGuardrails: p.json<string[]>(),
    updatedBy: p.string().nullable(),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type OrganisationGuardrailDefaults = InferEntity<typeof OrganisationGuardrailDefaultsSchema>;

/** A workspace excluded from the organisation's default guardrails of one direction. */
export const GuardrailWorkspaceExclusionSchema = defineEntity({
  name: 'GuardrailWorkspaceExclusion',
  tableName: 'guardrail_workspace_exclusion',
  properties: (p) => ({
    workspaceId: p.uuid().primary(),
    direction: p.string().primary(),
    organisationId: p.uuid(),
    createdBy: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  }),
});
export type GuardrailWorkspaceExclusion = InferEntity<typeof GuardrailWorkspaceExclusionSchema>;
