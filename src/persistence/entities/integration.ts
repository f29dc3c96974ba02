import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** Organisation- or workspace-level provider credentials (control-plane-schemas 2.4). */
export const IntegrationSchema = defineEntity({
  name: 'Integration',
  tableName: 'integration',
  properties: (p) => ({
    id: p.uuid().primary(),
    organisationId: p.uuid(),
    /** Set: a workspace-scoped integration, usable only there. */
    workspaceId: p.uuid().nullable(),
    name: p.string(),
    /** Unique per organisation. */
    slug: p.string(),
    aiProviderId: p.string(),
    description: p.text().nullable(),
    status: p.string().default('active'),
    /** The provider key, sealed (SecretBox, context `integration:<id>:key`). */
    keySealed: p.text().nullable(),
    keyMask: p.string().nullable(),
    /** The non-secret configuration fields. */
    configurations: p.json<Record<string, unknown>>(),
    /** The secret configuration fields as one sealed JSON object (context `integration:<id>:configurations`). */
    secretsSealed: p.text().nullable(),
    /** Stored as given; resolving secret references is not done here. */
    secretMappings: p.json<Record<string, unknown>[]>().nullable(),
    pricingAdjustments: p.json<Record<string, unknown>>().nullable(),
    allowAllModels: p.boolean().default(true),
    globalWorkspaceAccess: p.json<Record<string, unknown>>().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type Integration = InferEntity<typeof IntegrationSchema>;
