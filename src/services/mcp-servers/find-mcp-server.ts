import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../domain/errors.ts';
import { McpServerSchema } from '../../persistence/entities/index.ts';
import type { McpServer } from '../../persistence/entities/mcp-server.ts';
import type { Actor } from '../auth/actor.ts';
import { assertVisible, authorize } from '../auth/authorize.ts';
import { byIdOrSlug } from '../mcp-integrations/find-mcp-integration.ts';

/** A server of the caller's organisation by id or slug; another workspace's is a 404 for workspace keys. */
export async function findVisibleServer(em: EntityManager, actor: Actor, idOrSlug: string): Promise<McpServer> {
  const s = await em.findOne(McpServerSchema, { ...byIdOrSlug(idOrSlug), organisationId: actor.organisationId });
  if (!s) throw notFound('MCP server', 'id');
  assertVisible(actor, s.workspaceId, 'MCP server');
  return s;
}

/** The server locked for a change and authorized for `scope` in its workspace. */
export async function lockedServer(tx: EntityManager, actor: Actor, idOrSlug: string, scope: string): Promise<McpServer> {
  const s = await tx.findOne(McpServerSchema, { ...byIdOrSlug(idOrSlug), organisationId: actor.organisationId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!s) throw notFound('MCP server', 'id');
  assertVisible(actor, s.workspaceId, 'MCP server');
  authorize(actor, scope, { workspaceId: s.workspaceId });
  return s;
}
