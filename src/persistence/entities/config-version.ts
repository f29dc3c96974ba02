import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** One immutable version of a config's body; every update with `config` adds one. */
export const ConfigVersionSchema = defineEntity({
  name: 'ConfigVersion',
  tableName: 'config_version',
  properties: (p) => ({
    id: p.uuid().primary(),
    configId: p.uuid(),
    version: p.integer(),
    config: p.json<Record<string, unknown>>(),
    format: p.string().default('json'),
    createdBy: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  }),
});
export type ConfigVersion = InferEntity<typeof ConfigVersionSchema>;
