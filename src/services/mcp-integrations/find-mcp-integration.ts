import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../domain/errors.ts';
import { McpIntegrationSchema } from '../../persistence/entities/index.ts';
import type { McpIntegration } from '../../persistence/entities/mcp-integration.ts';
import { isOrganisationKey, type Actor } from '../auth/actor.ts';
import { isAvailableIn } from './integration-access.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const byIdOrSlug = (idOrSlug: string): { id: string } | { slug: string } => (UUID.test(idOrSlug) ? { id: idOrSlug } : { slug: idOrSlug });

/**
 * An integration of the caller's organisation by id or slug (control-plane-schemas 1.4). A
 * workspace key sees its workspace's integrations and the organisation's ones shared with it;
 * anything else is a 404.
 */
export async function findVisibleIntegration(em: EntityManager, actor: Actor, idOrSlug: string, param = 'id'): Promise<McpIntegration> {
  const i = await em.findOne(McpIntegrationSchema, { ...byIdOrSlug(idOrSlug), organisationId: actor.organisationId });
  if (!i) throw notFound('MCP integration', param);
  if (!isOrganisationKey(actor) && !(await isAvailableIn(em, i, actor.workspaceId!))) throw notFound('MCP integration', param);
  return i;
}

/** The integration locked for a change; the caller authorizes against its workspace. */
export async function findIntegrationForChange(em: EntityManager, actor: Actor, idOrSlug: string): Promise<McpIntegration> {
  const i = await em.findOne(McpIntegrationSchema, { ...byIdOrSlug(idOrSlug), organisationId: actor.organisationId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!i) throw notFound('MCP integration', 'id');
  if (!isOrganisationKey(actor) && !(await isAvailableIn(em, i, actor.workspaceId!))) throw notFound('MCP integration', 'id');
  return i;
}
