import { defineEntity, type InferEntity } from '@mikro-orm/core';

export const OrganisationSchema = defineEntity({
  name: 'Organisation',
  tableName: 'organisation',
  properties: (p) => ({
    id: p.uuid().primary(),
    name: p.string(),
    slug: p.string().unique(),
    settings: p.json<Record<string, unknown>>().default('{}' as never),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type Organisation = InferEntity<typeof OrganisationSchema>;
