import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** A workspace instance of an MCP integration (control-plane-schemas 2.18). */
export const McpServerSchema = defineEntity({
  name: 'McpServer',
  tableName: 'mcp_server',
  properties: (p) => ({
    id: p.uuid().primary(),
    organisationId: p.uuid(),
    workspaceId: p.uuid(),
    integrationId: p.uuid(),
    name: p.string(),
    /** 3–50, unique per organisation. */
    slug: p.string(),
    description: p.string().nullable(),
    status: p.string().default('active'),
    defaultUserAccess: p.string().default('allow'),
    ownerId: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type McpServer = InferEntity<typeof McpServerSchema>;

/** A server-level enable/disable of one of its integration's capabilities. */
export const McpServerCapabilitySchema = defineEntity({
  name: 'McpServerCapability',
  tableName: 'mcp_server_capability',
  properties: (p) => ({
    serverId: p.uuid().primary(),
    capabilityId: p.uuid().primary(),
    enabled: p.boolean(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type McpServerCapability = InferEntity<typeof McpServerCapabilitySchema>;

/** A per-user override of the server's default user access. */
export const McpServerUserAccessSchema = defineEntity({
  name: 'McpServerUserAccess',
  tableName: 'mcp_server_user_access',
  properties: (p) => ({
    serverId: p.uuid().primary(),
    userId: p.uuid().primary(),
    enabled: p.boolean(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type McpServerUserAccess = InferEntity<typeof McpServerUserAccessSchema>;

/** A user's auth connection to a server (OAuth tokens or per-user headers), written by the MCP gateway. */
export const McpServerConnectionSchema = defineEntity({
  name: 'McpServerConnection',
  tableName: 'mcp_server_connection',
  properties: (p) => ({
    serverId: p.uuid().primary(),
    userId: p.uuid().primary(),
    workspaceId: p.uuid(),
    connected: p.boolean().default(true),
    credentialsSealed: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type McpServerConnection = InferEntity<typeof McpServerConnectionSchema>;
