import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** A saved guardrail (control-plane-schemas 2.3); workspace_id null = an organisation guardrail. */
export const GuardrailSchema = defineEntity({
  name: 'Guardrail',
  tableName: 'guardrail',
  properties: (p) => ({
    id: p.uuid().primary(),
    organisationId: p.uuid(),
    workspaceId: p.uuid().nullable(),
    name: p.string(),
    /** Unique per organisation. */
    slug: p.string(),
    status: p.string().default('active'),
    /** The current version's checks and actions (copied into guardrail_version on every change). */
    checks: p.json<Record<string, unknown>[]>(),
    actions: p.json<Record<string, unknown>>(),
    currentVersionId: p.uuid().nullable(),
    ownerId: p.string(),
    updatedBy: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
    deletedAt: p.datetime().nullable(),
  }),
});
export type Guardrail = InferEntity<typeof GuardrailSchema>;
