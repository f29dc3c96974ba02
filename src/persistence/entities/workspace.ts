import { defineEntity, type InferEntity } from '@mikro-orm/core';

export const WorkspaceSchema = defineEntity({
  name: 'Workspace',
  tableName: 'workspace',
  properties: (p) => ({
    id: p.uuid().primary(),
    organisationId: p.uuid(),
    slug: p.string().unique(),
    name: p.string(),
    description: p.text().nullable(),
    isDefault: p.boolean().default(false),
    defaults: p.json<Record<string, unknown>>().default('{}' as never),
    settings: p.json<Record<string, unknown>>().default('{}' as never),
    usageLimits: p.json<Record<string, unknown>[]>().nullable(),
    rateLimits: p.json<Record<string, unknown>[]>().nullable(),
    status: p.enum(['active', 'archived']).default('active'),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type Workspace = InferEntity<typeof WorkspaceSchema>;
