import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidParameter, notFound } from '../../domain/errors.ts';
import { ProviderSchema } from '../../persistence/entities/index.ts';
import type { Provider } from '../../persistence/entities/provider.ts';
import { isOrganisationKey, type Actor } from '../auth/actor.ts';
import { findWorkspace } from '../workspaces/find-workspace.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type ProviderKind = 'provider' | 'virtual_key';
const WHAT: Record<ProviderKind, string> = { provider: 'Provider', virtual_key: 'Virtual key' };

/**
 * A provider or virtual key by slug (or id). Slugs are unique per workspace: a workspace key
 * looks in its own; an organisation key names `workspace_id`, or may leave it out while the
 * slug is used in only one workspace (control-plane-schemas 2.5: `workspace_id` optional on get).
 */
export async function findProvider(
  em: EntityManager,
  actor: Actor,
  kind: ProviderKind,
  idOrSlug: string,
  workspaceIdOrSlug?: string | null,
  lock = false,
): Promise<Provider> {
  const where: Record<string, unknown> = { organisationId: actor.organisationId, kind, ...(UUID.test(idOrSlug) ? { id: idOrSlug } : { slug: idOrSlug }) };
  if (!isOrganisationKey(actor)) where.workspaceId = actor.workspaceId;
  else if (workspaceIdOrSlug) {
    const ws = await findWorkspace(em, actor.organisationId, workspaceIdOrSlug);
    if (!ws) throw notFound('Workspace', 'workspace_id');
    where.workspaceId = ws.id;
  }
  const rows = await em.find(ProviderSchema, where, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true } : {});
  if (!rows.length) throw notFound(WHAT[kind], 'slug');
  if (rows.length > 1) throw invalidParameter('workspace_id', `workspace_id: the slug ${idOrSlug} is used in several workspaces; name one`);
  return rows[0]!;
}
