import type { EntityManager } from '@mikro-orm/postgresql';
import { IntegrationWorkspaceSchema } from '../../persistence/entities/index.ts';
import type { Integration } from '../../persistence/entities/integration.ts';

/** Whether a workspace may use an integration, and the limits it has there (control-plane-schemas 2.4, Integration workspaces). */
export interface WorkspaceAccess {
  enabled: boolean;
  usage_limits: Record<string, unknown>[] | null;
  rate_limits: Record<string, unknown>[] | null;
  /** The last `reset_usage` for this workspace: usage before it does not count against usage_limits. */
  reset_usage_at: string | null;
}

/**
 * A workspace-scoped integration serves only its workspace (without limits of its own); an
 * organisation one serves a workspace with an explicit row, or else by the global access
 * setting (which also covers workspaces created later).
 */
export async function workspaceAccess(em: EntityManager, integration: Integration, workspaceId: string): Promise<WorkspaceAccess> {
  if (integration.workspaceId) return { enabled: integration.workspaceId === workspaceId, usage_limits: null, rate_limits: null, reset_usage_at: null };
  const row = await em.findOne(IntegrationWorkspaceSchema, { integrationId: integration.id, workspaceId });
  if (row) return { enabled: row.enabled, usage_limits: row.usageLimits ?? null, rate_limits: row.rateLimits ?? null, reset_usage_at: row.resetUsageAt?.toISOString() ?? null };
  const global = integration.globalWorkspaceAccess as { enabled?: boolean; usage_limits?: Record<string, unknown>[] | null; rate_limits?: Record<string, unknown>[] | null } | null;
  return { enabled: global?.enabled === true, usage_limits: global?.usage_limits ?? null, rate_limits: global?.rate_limits ?? null, reset_usage_at: null };
}
