import type { EntityManager } from '@mikro-orm/postgresql';
import { McpIntegrationWorkspaceSchema } from '../../persistence/entities/index.ts';
import type { McpIntegration } from '../../persistence/entities/mcp-integration.ts';

// Which workspaces may use an integration (control-plane-schemas 2.18, GlobalWorkspaceAccess 1.5):
// a workspace-level integration only its own; an organisation-level one the workspaces whose
// access row is enabled, or, without a row, every workspace when global access is enabled.

/** SQL condition on an `mcp_integration` aliased `i`: available in workspace `?` (the parameter twice). */
export const AVAILABLE_IN_SQL = `(i.workspace_id = ? or (i.workspace_id is null and coalesce(
  (select a.enabled from mcp_integration_workspace a where a.integration_id = i.id and a.workspace_id = ?),
  coalesce((i.global_workspace_access->>'enabled')::boolean, false))))`;

export const globalAccessEnabled = (i: McpIntegration): boolean => i.globalWorkspaceAccess?.enabled === true;

export async function isAvailableIn(em: EntityManager, i: McpIntegration, workspaceId: string): Promise<boolean> {
  if (i.workspaceId) return i.workspaceId === workspaceId;
  const row = await em.findOne(McpIntegrationWorkspaceSchema, { integrationId: i.id, workspaceId });
  return row ? row.enabled : globalAccessEnabled(i);
}
