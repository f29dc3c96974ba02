import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidParameter, notFound } from '../../domain/errors.ts';
import { McpCapabilitySchema, McpIntegrationSchema, McpServerCapabilitySchema, McpServerSchema, WorkspaceSchema } from '../../persistence/entities/index.ts';
import { isOrganisationKey, type Actor } from '../auth/actor.ts';
import { assertVisible, authorize } from '../auth/authorize.ts';
import { mcpServerUrl } from '../deployments/gateway-urls.ts';
import { CAPABILITY_ORDER, countCapabilities, onePageWindow, toCapabilityView, type CapabilityPage } from '../mcp-integrations/capability-view.ts';
import { checkCapabilityType, type CapabilityListArgs } from '../mcp-integrations/read-mcp-integrations.ts';
import { pageWindow } from '../paging.ts';
import { findWorkspace } from '../workspaces/find-workspace.ts';
import { findVisibleServer } from './find-mcp-server.ts';
import { toMcpServerView, type McpServerView } from './mcp-server-view.ts';

/** `mcp_integration_details` is for service (not user) keys (control-plane-schemas 2.18). */
export const showsIntegrationDetails = (actor: Actor): boolean => actor.keyType.endsWith('-service');

export interface McpServerListArgs {
  workspaceId?: string | null;
  ids?: string[] | null;
  search?: string | null;
  currentPage?: number | null;
  pageSize?: number | null;
}

/** GET /mcp-servers → `{data, total}`; page_size at most 100 (control-plane-schemas 1.1). */
export async function listMcpServers(em: EntityManager, actor: Actor, gatewayUrls: readonly string[], args: McpServerListArgs = {}): Promise<{ data: McpServerView[]; total: number }> {
  authorize(actor, 'mcp_servers.list');
  const { limit, offset } = pageWindow({ currentPage: args.currentPage, pageSize: args.pageSize }, { defaultSize: 100, maxSize: 100 });
  if (args.search && args.search.length > 255) throw invalidParameter('search', 'search must be at most 255 characters');
  let workspaceId: string | null = isOrganisationKey(actor) ? null : actor.workspaceId;
  if (args.workspaceId) {
    const ws = await findWorkspace(em, actor.organisationId, args.workspaceId);
    if (!ws) throw notFound('Workspace', 'workspace_id');
    assertVisible(actor, ws.id, 'Workspace', 'workspace_id');
    workspaceId = ws.id;
  }
  const where: Record<string, unknown> = { organisationId: actor.organisationId, ...(workspaceId ? { workspaceId } : {}) };
  if (args.ids?.length) {
    const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
    const bad = args.ids.find((id) => !UUID.test(id));
    if (bad) throw invalidParameter('id', `id: ${bad} is not a UUID`);
    where.id = { $in: args.ids };
  }
  if (args.search) {
    const like = `%${args.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    where.$or = [{ name: { $ilike: like } }, { slug: { $ilike: like } }];
  }
  const [rows, total] = await em.findAndCount(McpServerSchema, where, { orderBy: { createdAt: 'asc', id: 'asc' }, limit, offset });
  const integrations = new Map((await em.find(McpIntegrationSchema, { id: { $in: [...new Set(rows.map((r) => r.integrationId))] } })).map((i) => [i.id, i]));
  const workspaces = new Map((await em.find(WorkspaceSchema, { id: { $in: [...new Set(rows.map((r) => r.workspaceId))] } })).map((w) => [w.id, w]));
  const details = showsIntegrationDetails(actor);
  const data = rows.map((s) => {
    const i = integrations.get(s.integrationId)!;
    const w = workspaces.get(s.workspaceId)!;
    return {
      ...toMcpServerView(s, i, details),
      organisation_id: s.organisationId,
      owner_id: s.ownerId ?? null,
      mcp_integration_slug: i.slug,
      mcp_integration_url: i.url,
      auth_type: i.authType,
      workspace_name: w.name,
      workspace_slug: w.slug,
      url: mcpServerUrl(gatewayUrls, s.slug),
    };
  });
  return { data, total };
}

export async function getMcpServer(em: EntityManager, actor: Actor, idOrSlug: string): Promise<McpServerView> {
  authorize(actor, 'mcp_servers.read');
  const s = await findVisibleServer(em, actor, idOrSlug);
  return toMcpServerView(s, await em.findOne(McpIntegrationSchema, { id: s.integrationId }), showsIntegrationDetails(actor));
}

/**
 * GET /mcp-servers/{id}/capabilities: the integration's capabilities with this server's flag
 * (its own setting, else the integration's) and `integration_enabled`.
 */
export async function listMcpServerCapabilities(em: EntityManager, actor: Actor, idOrSlug: string, args: CapabilityListArgs = {}): Promise<CapabilityPage> {
  authorize(actor, 'mcp_servers.read');
  const { limit, offset } = onePageWindow(args);
  checkCapabilityType(args.type);
  const s = await findVisibleServer(em, actor, idOrSlug);
  const caps = await em.find(McpCapabilitySchema, { integrationId: s.integrationId }, { orderBy: CAPABILITY_ORDER });
  const own = new Map((await em.find(McpServerCapabilitySchema, { serverId: s.id })).map((o) => [o.capabilityId, o.enabled]));
  const all = caps.map((c) => ({ ...toCapabilityView(c, own.get(c.id) ?? c.enabled), integration_enabled: c.enabled }));
  const filtered = args.type ? all.filter((c) => c.type === args.type) : all;
  const data = filtered.slice(offset, offset + limit);
  return { data, counts: countCapabilities(all), total: filtered.length, has_more: offset + data.length < filtered.length };
}
