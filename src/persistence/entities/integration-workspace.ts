import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** A workspace's access to an organisation integration, with its limits (control-plane-schemas 2.4). */
export const IntegrationWorkspaceSchema = defineEntity({
  name: 'IntegrationWorkspace',
  tableName: 'integration_workspace',
  properties: (p) => ({
    integrationId: p.uuid().primary(),
    workspaceId: p.uuid().primary(),
    enabled: p.boolean(),
    usageLimits: p.json<Record<string, unknown>[]>().nullable(),
    rateLimits: p.json<Record<string, unknown>[]>().nullable(),
    resetUsageAt: p.datetime().nullable(),
  }),
});
export type IntegrationWorkspace = InferEntity<typeof IntegrationWorkspaceSchema>;
