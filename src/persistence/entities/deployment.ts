import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** A gateway installation registered with the organisation (control-plane-schemas 2.19, draft). */
export const DeploymentSchema = defineEntity({
  name: 'Deployment',
  tableName: 'deployment',
  properties: (p) => ({
    id: p.uuid().primary(),
    organisationId: p.uuid(),
    name: p.string(),
    /** Unique per organisation, 1–50. */
    slug: p.string(),
    type: p.string().default('production'),
    status: p.string().default('active'),
    sourceType: p.string().nullable(),
    /** Key-value pairs (gateway-spec: deployments support `tags`). */
    tags: p.json<Record<string, string>>().default('{}' as never),
    deploymentConfig: p.json<Record<string, unknown>>().default('{}' as never),
    authSettings: p.json<Record<string, unknown>>().default('{}' as never),
    isDefault: p.boolean().default(false),
    chDb: p.string().nullable(),
    credentialsUsername: p.string().nullable(),
    /** SecretBox-sealed, context `deployment:<id>`. */
    credentialsPasswordSealed: p.text().nullable(),
    ownerId: p.string().nullable(),
    updatedBy: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type Deployment = InferEntity<typeof DeploymentSchema>;
