import { defineEntity, type InferEntity } from '@mikro-orm/core';

/**
 * A workspace-level provider (control-plane-schemas 2.5, kind `provider`, built on an
 * integration) or a legacy virtual key (2.6, kind `virtual_key`, its own provider and key).
 * Both share one slug space per workspace: the data plane addresses either as `@slug`.
 */
export const ProviderSchema = defineEntity({
  name: 'Provider',
  tableName: 'provider',
  properties: (p) => ({
    id: p.uuid().primary(),
    organisationId: p.uuid(),
    workspaceId: p.uuid(),
    kind: p.enum(['provider', 'virtual_key']),
    integrationId: p.uuid().nullable(),
    /** Virtual keys: the provider they call. */
    aiProviderId: p.string().nullable(),
    name: p.string(),
    slug: p.string(),
    note: p.text().nullable(),
    status: p.string().default('active'),
    usageLimits: p.json<Record<string, unknown>>().nullable(),
    rateLimits: p.json<Record<string, unknown>[]>().nullable(),
    expiresAt: p.datetime().nullable(),
    resetUsage: p.decimal('number').nullable(),
    /** Virtual keys: the provider key, sealed (context `provider:<id>:key`). */
    keySealed: p.text().nullable(),
    keyMask: p.string().nullable(),
    /** Virtual keys: Azure-style options (`apiVersion`, `resourceName`, `deploymentName`, `deploymentConfig`). */
    modelConfig: p.json<Record<string, unknown>>().nullable(),
    secretMappings: p.json<Record<string, unknown>[]>().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type Provider = InferEntity<typeof ProviderSchema>;
