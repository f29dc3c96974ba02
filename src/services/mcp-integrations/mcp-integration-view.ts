import type { McpIntegration } from '../../persistence/entities/mcp-integration.ts';

/** An MCP integration (control-plane-schemas 2.18); configurations are the masked copy. */
export interface McpIntegrationView {
  id: string;
  name: string;
  description: string | null;
  owner_id: string | null;
  status: string;
  created_at: string;
  last_updated_at: string;
  configurations: Record<string, unknown> | null;
  global_workspace_access: Record<string, unknown> | null;
  organisation_id: string;
  workspace_id: string | null;
  slug: string;
  url: string;
  auth_type: string;
  transport: string;
  type: 'workspace' | 'organisation';
  secret_mappings: Record<string, unknown>[];
  /** List items only. */
  workspaces_count?: number;
}

export function toMcpIntegrationView(i: McpIntegration, workspacesCount?: number): McpIntegrationView {
  return {
    id: i.id,
    name: i.name,
    description: i.description ?? null,
    owner_id: i.ownerId ?? null,
    status: i.status,
    created_at: i.createdAt.toISOString(),
    last_updated_at: i.updatedAt.toISOString(),
    configurations: i.configurations ?? null,
    global_workspace_access: i.globalWorkspaceAccess ?? null,
    organisation_id: i.organisationId,
    workspace_id: i.workspaceId ?? null,
    slug: i.slug,
    url: i.url,
    auth_type: i.authType,
    transport: i.transport,
    type: i.workspaceId ? 'workspace' : 'organisation',
    secret_mappings: i.secretMappings,
    ...(workspacesCount === undefined ? {} : { workspaces_count: workspacesCount }),
  };
}

/** `GET …/metadata`: server info and sync status, all nullable. */
export interface McpIntegrationMetadataView {
  server_name: string | null;
  server_version: string | null;
  protocol_version: string | null;
  capability_flags: Record<string, unknown> | null;
  sync_status: string | null;
  last_synced_at: string | null;
  sync_error: string | null;
}

export const toMetadataView = (i: McpIntegration): McpIntegrationMetadataView => ({
  server_name: i.serverName ?? null,
  server_version: i.serverVersion ?? null,
  protocol_version: i.protocolVersion ?? null,
  capability_flags: i.capabilityFlags ?? null,
  sync_status: i.syncStatus ?? null,
  last_synced_at: i.lastSyncedAt ? i.lastSyncedAt.toISOString() : null,
  sync_error: i.syncError ?? null,
});
