import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidParameter, notFound } from '../../domain/errors.ts';
import { parseWith } from '../../domain/validation.ts';
import { McpCapabilitySchema, McpServerConnectionSchema, UserSchema } from '../../persistence/entities/index.ts';
import type { Actor, RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { updateCapabilitiesSchema } from '../mcp-integrations/mcp-integration-input.ts';
import { findVisibleServer, lockedServer } from './find-mcp-server.ts';
import { updateUserAccessSchema } from './mcp-server-input.ts';

const upsert = async (tx: EntityManager, sql: string, params: unknown[]): Promise<void> => {
  await tx.getConnection().execute(sql, params, 'run', tx.getTransactionContext());
};

/** PUT /mcp-servers/{id}/capabilities: this server's enable/disable of its integration's capabilities. → `{success}`. */
export async function updateMcpServerCapabilities(em: EntityManager, actor: Actor, meta: RequestMeta, idOrSlug: string, input: unknown): Promise<{ success: boolean }> {
  authorize(actor, 'mcp_servers.update');
  const body = parseWith(updateCapabilitiesSchema, input);
  return em.transactional(async (tx) => {
    const s = await lockedServer(tx, actor, idOrSlug, 'mcp_servers.update');
    const caps = await tx.find(McpCapabilitySchema, { integrationId: s.integrationId });
    for (const [n, c] of body.capabilities.entries()) {
      const cap = caps.find((x) => x.type === c.type && x.name === c.name);
      if (!cap) throw invalidParameter(`capabilities[${n}].name`, `capabilities[${n}].name: the integration has no ${c.type} named ${c.name}`);
      await upsert(
        tx,
        `insert into mcp_server_capability (server_id, capability_id, enabled) values (?, ?, ?)
         on conflict (server_id, capability_id) do update set enabled = excluded.enabled, updated_at = now()`,
        [s.id, cap.id, c.enabled],
      );
    }
    recordAudit(tx, actor, meta, { action: 'mcp_server.capabilities.update', targetType: 'mcp_server', targetId: s.id, workspaceId: s.workspaceId, details: body });
    await tx.flush();
    return { success: true };
  });
}

/** PUT /mcp-servers/{id}/user-access: per-user overrides (users of the organisation) and the default policy. → `{success}`. */
export async function updateMcpServerUserAccess(em: EntityManager, actor: Actor, meta: RequestMeta, idOrSlug: string, input: unknown): Promise<{ success: boolean }> {
  authorize(actor, 'mcp_servers.update');
  const body = parseWith(updateUserAccessSchema, input);
  return em.transactional(async (tx) => {
    const s = await lockedServer(tx, actor, idOrSlug, 'mcp_servers.update');
    for (const [n, u] of (body.user_access ?? []).entries()) {
      if (!(await tx.count(UserSchema, { id: u.user_id, organisationId: s.organisationId }))) throw notFound('User', `user_access[${n}].user_id`);
      await upsert(
        tx,
        `insert into mcp_server_user_access (server_id, user_id, enabled) values (?, ?, ?)
         on conflict (server_id, user_id) do update set enabled = excluded.enabled, updated_at = now()`,
        [s.id, u.user_id, u.enabled],
      );
    }
    if (body.default_user_access !== undefined) {
      s.defaultUserAccess = body.default_user_access;
      s.updatedAt = new Date();
    }
    recordAudit(tx, actor, meta, { action: 'mcp_server.user_access.update', targetType: 'mcp_server', targetId: s.id, workspaceId: s.workspaceId, details: body });
    await tx.flush();
    return { success: true };
  });
}

/**
 * DELETE /mcp-servers/{id}/connections?user_id=&workspace_id=: removes a user's connection and
 * its credentials. User keys default to their own user; service keys must name one. → `{success}`.
 */
export async function deleteMcpServerConnection(
  em: EntityManager,
  actor: Actor,
  meta: RequestMeta,
  idOrSlug: string,
  args: { userId?: string | null; workspaceId?: string | null },
): Promise<{ success: boolean }> {
  authorize(actor, 'mcp_servers.update');
  const userId = args.userId || actor.userId;
  if (!userId) throw invalidParameter('user_id', 'user_id: required for service API keys');
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(userId)) throw invalidParameter('user_id', 'user_id must be a UUID');
  if (args.workspaceId && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(args.workspaceId)) throw invalidParameter('workspace_id', 'workspace_id must be a UUID');
  const visible = await findVisibleServer(em, actor, idOrSlug);
  return em.transactional(async (tx) => {
    const s = await lockedServer(tx, actor, visible.id, 'mcp_servers.update');
    const where = { serverId: s.id, userId, ...(args.workspaceId ? { workspaceId: args.workspaceId } : {}) };
    const row = await tx.findOne(McpServerConnectionSchema, where);
    if (!row) throw notFound('Connection', 'user_id');
    tx.remove(row);
    recordAudit(tx, actor, meta, { action: 'mcp_server.connection.delete', targetType: 'mcp_server', targetId: s.id, workspaceId: s.workspaceId, details: { user_id: userId } });
    await tx.flush();
    return { success: true };
  });
}
