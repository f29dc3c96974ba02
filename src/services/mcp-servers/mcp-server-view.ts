import type { McpIntegration } from '../../persistence/entities/mcp-integration.ts';
import type { McpServer } from '../../persistence/entities/mcp-server.ts';

/** What `mcp_integration_details` shows (service auth only; configurations masked). */
export interface McpIntegrationDetailsView {
  id: string;
  slug: string;
  status: string;
  configurations: Record<string, unknown> | null;
  url: string;
  transport: string;
  auth_type: string;
}

/** An MCP server (control-plane-schemas 2.18); list items add the `ListItem` fields. */
export interface McpServerView {
  id: string;
  slug: string;
  name: string;
  status: string;
  description: string | null;
  created_at: string;
  last_updated_at: string;
  mcp_integration_id: string;
  mcp_integration_details: McpIntegrationDetailsView | null;
  workspace_id: string;
  organisation_id?: string;
  owner_id?: string | null;
  mcp_integration_slug?: string;
  mcp_integration_url?: string;
  auth_type?: string;
  workspace_name?: string;
  workspace_slug?: string;
  /** The gateway URL of this server, `{gateway_base}/{slug}/mcp`. */
  url?: string | null;
}

export function toMcpServerView(s: McpServer, integration: McpIntegration | null, showDetails: boolean): McpServerView {
  return {
    id: s.id,
    slug: s.slug,
    name: s.name,
    status: s.status,
    description: s.description ?? null,
    created_at: s.createdAt.toISOString(),
    last_updated_at: s.updatedAt.toISOString(),
    mcp_integration_id: s.integrationId,
    mcp_integration_details:
      showDetails && integration
        ? { id: integration.id, slug: integration.slug, status: integration.status, configurations: integration.configurations ?? null, url: integration.url, transport: integration.transport, auth_type: integration.authType }
        : null,
    workspace_id: s.workspaceId,
  };
}
