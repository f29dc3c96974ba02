import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** An upstream MCP server registered for the organisation or one workspace (control-plane-schemas 2.18). */
export const McpIntegrationSchema = defineEntity({
  name: 'McpIntegration',
  tableName: 'mcp_integration',
  properties: (p) => ({
    id: p.uuid().primary(),
    organisationId: p.uuid(),
    /** null: an organisation-level integration, shared with workspaces by access rows. */
    workspaceId: p.uuid().nullable(),
    name: p.string(),
    slug: p.string(),
    description: p.text().nullable(),
    url: p.text(),
    authType: p.string(),
    transport: p.string(),
    status: p.string().default('active'),
    /** The configurations with secret values masked (what answers show). */
    configurations: p.json<Record<string, unknown>>().nullable(),
    /** The full configurations, SecretBox-sealed JSON, context `mcp_integration:<id>`. */
    configurationsSealed: p.text().nullable(),
    secretMappings: p.json<Record<string, unknown>[]>().default('[]' as never),
    globalWorkspaceAccess: p.json<Record<string, unknown>>().nullable(),
    serverName: p.text().nullable(),
    serverVersion: p.text().nullable(),
    protocolVersion: p.text().nullable(),
    capabilityFlags: p.json<Record<string, unknown>>().nullable(),
    syncStatus: p.string().nullable(),
    lastSyncedAt: p.datetime().nullable(),
    syncError: p.text().nullable(),
    ownerId: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type McpIntegration = InferEntity<typeof McpIntegrationSchema>;

/** Per-workspace access to an organisation-level integration. */
export const McpIntegrationWorkspaceSchema = defineEntity({
  name: 'McpIntegrationWorkspace',
  tableName: 'mcp_integration_workspace',
  properties: (p) => ({
    integrationId: p.uuid().primary(),
    workspaceId: p.uuid().primary(),
    enabled: p.boolean(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type McpIntegrationWorkspace = InferEntity<typeof McpIntegrationWorkspaceSchema>;

/** A tool, prompt, resource or resource template discovered on an integration. */
export const McpCapabilitySchema = defineEntity({
  name: 'McpCapability',
  tableName: 'mcp_capability',
  properties: (p) => ({
    id: p.uuid().primary(),
    integrationId: p.uuid(),
    type: p.string(),
    name: p.string(),
    title: p.text().nullable(),
    description: p.text().nullable(),
    /** icons, input_schema, output_schema, execution, annotations, arguments, uri, uri_template, mime_type, size. */
    details: p.json<Record<string, unknown>>().default('{}' as never),
    /** Enabled at integration level. */
    enabled: p.boolean().default(true),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type McpCapability = InferEntity<typeof McpCapabilitySchema>;
