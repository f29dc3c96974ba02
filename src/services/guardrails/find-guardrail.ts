import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../domain/errors.ts';
import { GuardrailSchema } from '../../persistence/entities/index.ts';
import type { Guardrail } from '../../persistence/entities/guardrail.ts';
import { isOrganisationKey, type Actor } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type GuardrailAction = 'create' | 'read' | 'update' | 'delete' | 'list';

/**
 * Workspace guardrails answer to `guardrails.*`, organisation guardrails (no workspace) to
 * `organisation_guardrails.*` (spec, Authentication 4), which only organisation keys hold.
 */
export const guardrailScope = (workspaceId: string | null, action: GuardrailAction): string =>
  workspaceId ? `guardrails.${action}` : `organisation_guardrails.${action}`;

const where = (idOrSlug: string) => (UUID.test(idOrSlug) ? { id: idOrSlug } : { slug: idOrSlug });

/** A live guardrail of the caller's organisation by id or slug; 404 when absent or out of a workspace key's reach. */
export async function findVisibleGuardrail(em: EntityManager, actor: Actor, idOrSlug: string): Promise<Guardrail> {
  const g = await em.findOne(GuardrailSchema, { ...where(idOrSlug), organisationId: actor.organisationId, deletedAt: null });
  // A workspace key sees its own workspace's guardrails only (organisation ones are for organisation keys).
  if (!g || (!isOrganisationKey(actor) && g.workspaceId !== actor.workspaceId)) throw notFound('Guardrail', 'id');
  return g;
}

/** A live guardrail locked for the transaction, authorized for `action` (another workspace's is a 403). */
export async function findGuardrailForChange(em: EntityManager, actor: Actor, idOrSlug: string, action: 'update' | 'delete'): Promise<Guardrail> {
  const g = await em.findOne(GuardrailSchema, { ...where(idOrSlug), organisationId: actor.organisationId, deletedAt: null }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!g) throw notFound('Guardrail', 'id');
  authorize(actor, guardrailScope(g.workspaceId ?? null, action), { workspaceId: g.workspaceId ?? null });
  return g;
}
