import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidParameter } from '../../domain/errors.ts';
import type { Actor } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { onePageWindow } from '../mcp-integrations/capability-view.ts';
import { pageWindow } from '../paging.ts';
import { findVisibleServer } from './find-mcp-server.ts';

export interface McpUserAccessView {
  user_id: string;
  first_name: string | null;
  last_name: string | null;
  enabled: boolean;
  has_override: boolean;
  connection_status: 'connected' | 'not_connected';
}

export interface McpUserAccessPage {
  data: McpUserAccessView[];
  default_user_access: string;
  total: number;
  has_more: boolean;
}

/**
 * GET /mcp-servers/{id}/user-access: the members of the server's workspace and any user with an
 * override; `enabled` is the override, else the default policy (control-plane-schemas 2.18).
 */
export async function listMcpServerUserAccess(em: EntityManager, actor: Actor, idOrSlug: string, args: { page?: number | null; pageSize?: number | null } = {}): Promise<McpUserAccessPage> {
  authorize(actor, 'mcp_servers.read');
  const { limit, offset } = onePageWindow(args);
  const s = await findVisibleServer(em, actor, idOrSlug);
  const users = `select u.id, u.first_name, u.last_name, a.enabled as override, coalesce(c.connected, false) as connected
    from app_user u
    left join mcp_server_user_access a on a.server_id = ? and a.user_id = u.id
    left join mcp_server_connection c on c.server_id = ? and c.user_id = u.id
    where u.organisation_id = ? and (a.user_id is not null or exists (select 1 from workspace_member m where m.workspace_id = ? and m.user_id = u.id))`;
  const params = [s.id, s.id, s.organisationId, s.workspaceId];
  const conn = em.getConnection();
  const [{ n }] = (await conn.execute<{ n: string }[]>(`select count(*)::text as n from (${users}) x`, params)) as [{ n: string }];
  const rows = await conn.execute<{ id: string; first_name: string | null; last_name: string | null; override: boolean | null; connected: boolean }[]>(
    `${users} order by u.created_at, u.id limit ? offset ?`,
    [...params, limit, offset],
  );
  const data = rows.map((r) => ({
    user_id: r.id,
    first_name: r.first_name,
    last_name: r.last_name,
    enabled: r.override ?? s.defaultUserAccess === 'allow',
    has_override: r.override !== null,
    connection_status: r.connected ? ('connected' as const) : ('not_connected' as const),
  }));
  const total = Number(n);
  return { data, default_user_access: s.defaultUserAccess, total, has_more: offset + data.length < total };
}

export interface McpConnectionView {
  user_id: string;
  connected: boolean;
  created_at: string;
  last_updated_at: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** GET /mcp-servers/{id}/connections: filters `user_id`, `workspace_id`; 0-based paging, at most 500. */
export async function listMcpServerConnections(
  em: EntityManager,
  actor: Actor,
  idOrSlug: string,
  args: { userId?: string | null; workspaceId?: string | null; currentPage?: number | null; pageSize?: number | null } = {},
): Promise<{ data: McpConnectionView[]; total: number; has_more: boolean }> {
  authorize(actor, 'mcp_servers.read');
  const { limit, offset } = pageWindow({ currentPage: args.currentPage, pageSize: args.pageSize }, { defaultSize: 100, maxSize: 500 });
  if (args.userId && !UUID.test(args.userId)) throw invalidParameter('user_id', 'user_id must be a UUID');
  if (args.workspaceId && !UUID.test(args.workspaceId)) throw invalidParameter('workspace_id', 'workspace_id must be a UUID');
  const s = await findVisibleServer(em, actor, idOrSlug);
  const where = ['server_id = ?'];
  const params: unknown[] = [s.id];
  if (args.userId) {
    where.push('user_id = ?');
    params.push(args.userId);
  }
  if (args.workspaceId) {
    where.push('workspace_id = ?');
    params.push(args.workspaceId);
  }
  const conn = em.getConnection();
  const [{ n }] = (await conn.execute<{ n: string }[]>(`select count(*)::text as n from mcp_server_connection where ${where.join(' and ')}`, params)) as [{ n: string }];
  const rows = await conn.execute<{ user_id: string; connected: boolean; created_at: Date; updated_at: Date }[]>(
    `select user_id, connected, created_at, updated_at from mcp_server_connection where ${where.join(' and ')} order by created_at, user_id limit ? offset ?`,
    [...params, limit, offset],
  );
  const data = rows.map((r) => ({ user_id: r.user_id, connected: r.connected, created_at: new Date(r.created_at).toISOString(), last_updated_at: new Date(r.updated_at).toISOString() }));
  const total = Number(n);
  return { data, total, has_more: offset + data.length < total };
}
