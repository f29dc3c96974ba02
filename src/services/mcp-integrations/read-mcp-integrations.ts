import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidParameter, notFound } from '../../domain/errors.ts';
import { McpCapabilitySchema, McpIntegrationSchema, McpIntegrationWorkspaceSchema, WorkspaceSchema } from '../../persistence/entities/index.ts';
import { isOrganisationKey, type Actor } from '../auth/actor.ts';
import { assertVisible, authorize } from '../auth/authorize.ts';
import { pageWindow } from '../paging.ts';
import { findWorkspace } from '../workspaces/find-workspace.ts';
import { CAPABILITY_ORDER, countCapabilities, onePageWindow, toCapabilityView, type CapabilityPage } from './capability-view.ts';
import { findVisibleIntegration } from './find-mcp-integration.ts';
import { AVAILABLE_IN_SQL, globalAccessEnabled } from './integration-access.ts';
import { toMcpIntegrationView, toMetadataView, type McpIntegrationMetadataView, type McpIntegrationView } from './mcp-integration-view.ts';

export interface McpIntegrationListArgs {
  organisationId?: string | null;
  workspaceId?: string | null;
  type?: string | null;
  search?: string | null;
  currentPage?: number | null;
  pageSize?: number | null;
}

/** `{data, total, has_more}` (control-plane-schemas 1.1). */
export interface McpIntegrationPage {
  data: McpIntegrationView[];
  total: number;
  has_more: boolean;
}

/**
 * GET /mcp-integrations: org keys see all (a `workspace_id` narrows to what that workspace may
 * use); workspace keys what their workspace may use. `type` is workspace, organisation or all.
 */
export async function listMcpIntegrations(em: EntityManager, actor: Actor, args: McpIntegrationListArgs = {}): Promise<McpIntegrationPage> {
  authorize(actor, 'mcp_integrations.list');
  const { limit, offset } = pageWindow({ currentPage: args.currentPage, pageSize: args.pageSize }, { defaultSize: 100, maxSize: 1000 });
  if (args.organisationId && args.organisationId !== actor.organisationId) throw notFound('Organisation', 'organisation_id');
  const type = args.type ?? 'all';
  if (!['workspace', 'organisation', 'all'].includes(type)) throw invalidParameter('type', 'type must be workspace, organisation or all');
  let workspaceId: string | null = isOrganisationKey(actor) ? null : actor.workspaceId;
  if (args.workspaceId) {
    const ws = await findWorkspace(em, actor.organisationId, args.workspaceId);
    if (!ws) throw notFound('Workspace', 'workspace_id');
    assertVisible(actor, ws.id, 'Workspace', 'workspace_id');
    workspaceId = ws.id;
  }
  const where: string[] = ['i.organisation_id = ?'];
  const params: unknown[] = [actor.organisationId];
  if (workspaceId) {
    where.push(AVAILABLE_IN_SQL);
    params.push(workspaceId, workspaceId);
  }
  if (type === 'workspace') where.push('i.workspace_id is not null');
  if (type === 'organisation') where.push('i.workspace_id is null');
  if (args.search) {
    where.push(`(i.name ilike ? or i.slug ilike ?)`);
    const like = `%${args.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    params.push(like, like);
  }
  const conn = em.getConnection();
  const [{ n }] = (await conn.execute<{ n: string }[]>(`select count(*)::text as n from mcp_integration i where ${where.join(' and ')}`, params)) as [{ n: string }];
  const rows = await conn.execute<{ id: string; workspaces_count: number }[]>(
    `select i.id, case when i.workspace_id is not null then 1 else
       (select count(*)::int from mcp_integration_workspace a where a.integration_id = i.id and a.enabled) end as workspaces_count
     from mcp_integration i where ${where.join(' and ')} order by i.created_at, i.id limit ? offset ?`,
    [...params, limit, offset],
  );
  const entities = await em.find(McpIntegrationSchema, { id: { $in: rows.map((r) => r.id) } });
  const byId = new Map(entities.map((e) => [e.id, e]));
  const data = rows.map((r) => toMcpIntegrationView(byId.get(r.id)!, Number(r.workspaces_count)));
  const total = Number(n);
  return { data, total, has_more: offset + data.length < total };
}

export async function getMcpIntegration(em: EntityManager, actor: Actor, idOrSlug: string): Promise<McpIntegrationView> {
  authorize(actor, 'mcp_integrations.read');
  return toMcpIntegrationView(await findVisibleIntegration(em, actor, idOrSlug));
}

export async function getMcpIntegrationMetadata(em: EntityManager, actor: Actor, idOrSlug: string): Promise<McpIntegrationMetadataView> {
  authorize(actor, 'mcp_integrations.read');
  return toMetadataView(await findVisibleIntegration(em, actor, idOrSlug));
}

export interface McpIntegrationWorkspaceView {
  id: string;
  enabled: boolean;
  status: string;
  created_at: string;
  last_updated_at: string;
}

export interface McpIntegrationWorkspaces {
  data: McpIntegrationWorkspaceView[];
  global_workspace_access: Record<string, unknown> | null;
  total: number;
}

/**
 * GET /mcp-integrations/{id}/workspaces: every workspace of the organisation with its effective
 * access (its row, else global access); a workspace-level integration lists its own workspace.
 * Workspace keys see their own workspace only.
 */
export async function listMcpIntegrationWorkspaces(em: EntityManager, actor: Actor, idOrSlug: string): Promise<McpIntegrationWorkspaces> {
  authorize(actor, 'mcp_integrations.read');
  const i = await findVisibleIntegration(em, actor, idOrSlug);
  const scope = isOrganisationKey(actor) ? {} : { id: actor.workspaceId! };
  const workspaces = await em.find(WorkspaceSchema, { organisationId: actor.organisationId, ...(i.workspaceId ? { id: i.workspaceId } : {}), ...scope }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  const rows = await em.find(McpIntegrationWorkspaceSchema, { integrationId: i.id });
  const byWs = new Map(rows.map((r) => [r.workspaceId, r]));
  const data = workspaces.map((w) => {
    const row = byWs.get(w.id);
    return {
      id: w.id,
      enabled: i.workspaceId ? true : (row?.enabled ?? globalAccessEnabled(i)),
      status: w.status,
      created_at: (row?.createdAt ?? w.createdAt).toISOString(),
      last_updated_at: (row?.updatedAt ?? w.updatedAt).toISOString(),
    };
  });
  return { data, global_workspace_access: i.globalWorkspaceAccess ?? null, total: data.length };
}

export interface CapabilityListArgs {
  type?: string | null;
  page?: number | null;
  pageSize?: number | null;
}

export const checkCapabilityType = (type: string | null | undefined): void => {
  if (type && !['tool', 'prompt', 'resource', 'resource_template'].includes(type)) throw invalidParameter('type', 'type must be tool, prompt, resource or resource_template');
};

/** GET /mcp-integrations/{id}/capabilities: 1-based `page`, filter `type`; counts over every type. */
export async function listMcpIntegrationCapabilities(em: EntityManager, actor: Actor, idOrSlug: string, args: CapabilityListArgs = {}): Promise<CapabilityPage> {
  authorize(actor, 'mcp_integrations.read');
  const { limit, offset } = onePageWindow(args);
  checkCapabilityType(args.type);
  const i = await findVisibleIntegration(em, actor, idOrSlug);
  const all = await em.find(McpCapabilitySchema, { integrationId: i.id }, { orderBy: CAPABILITY_ORDER });
  const filtered = args.type ? all.filter((c) => c.type === args.type) : all;
  const data = filtered.slice(offset, offset + limit).map((c) => toCapabilityView(c));
  return { data, counts: countCapabilities(all), total: filtered.length, has_more: offset + data.length < filtered.length };
}
