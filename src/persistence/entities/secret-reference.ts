import { defineEntity, type InferEntity } from '@mikro-orm/core';

/**
 * A pointer to a secret held in an external manager (control-plane-schemas 2.17). Never the
 * secret itself: `auth_config` (how to reach the manager, which may hold credentials) is sealed
 * with SecretBox, bound to the row id.
 */
export const SecretReferenceSchema = defineEntity({
  name: 'SecretReference',
  tableName: 'secret_reference',
  properties: (p) => ({
    id: p.uuid().primary(),
    organisationId: p.uuid(),
    name: p.string(),
    slug: p.string(),
    description: p.string().nullable(),
    managerType: p.string(),
    authConfigSealed: p.text(),
    secretPath: p.string(),
    secretKey: p.string().nullable(),
    allowAllWorkspaces: p.boolean().default(true),
    /** Workspace ids (when allow_all_workspaces is false). */
    allowedWorkspaces: p.json<string[]>().default('[]' as never),
    tags: p.json<Record<string, string>>().nullable(),
    status: p.string().default('ACTIVE'),
    createdBy: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type SecretReference = InferEntity<typeof SecretReferenceSchema>;
