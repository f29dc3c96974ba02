import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** A saved routing config (control-plane-schemas 2.2); its body lives in config_version. */
export const ConfigSchema = defineEntity({
  name: 'Config',
  tableName: 'config',
  properties: (p) => ({
    id: p.uuid().primary(),
    organisationId: p.uuid(),
    workspaceId: p.uuid(),
    name: p.string(),
    /** Unique per organisation. */
    slug: p.string(),
    /** 0/1 as in the API; at most one live default per workspace. */
    isDefault: p.integer().default(0),
    status: p.string().default('active'),
    ownerId: p.string().nullable(),
    updatedBy: p.string().nullable(),
    currentVersionId: p.uuid().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
    deletedAt: p.datetime().nullable(),
  }),
});
export type Config = InferEntity<typeof ConfigSchema>;
