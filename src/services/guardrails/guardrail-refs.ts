import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { GuardrailSchema } from '../../persistence/entities/index.ts';
import { UUID } from './find-guardrail.ts';

/**
 * The refs (ids or slugs, as written in a config) that name no live guardrail the workspace can
 * use: its own guardrails and the organisation's (gateway-spec: guardrail slugs referenced in
 * configs are validated at save time). Order kept. Inside a transaction the found rows are share-locked
 * until it ends, so a concurrent guardrail delete (which locks the row, then looks for configs naming
 * it) either waits and sees the new config, or wins and the ref is reported missing.
 */
export async function missingGuardrailRefs(em: EntityManager, organisationId: string, workspaceId: string, refs: string[]): Promise<string[]> {
  if (!refs.length) return [];
  const ids = refs.filter((r) => UUID.test(r));
  const slugs = refs.filter((r) => !UUID.test(r));
  const found = await em.find(
    GuardrailSchema,
    {
      organisationId,
      deletedAt: null,
      status: 'active',
      $and: [{ $or: [{ workspaceId }, { workspaceId: null }] }, { $or: [...(ids.length ? [{ id: { $in: ids } }] : []), ...(slugs.length ? [{ slug: { $in: slugs } }] : [])] }],
    },
    { fields: ['id', 'slug'], ...(em.isInTransaction() ? { lockMode: LockMode.PESSIMISTIC_READ } : {}) },
  );
  const known = new Set(found.flatMap((g) => [g.id.toLowerCase(), g.slug]));
  return refs.filter((r) => !known.has(UUID.test(r) ? r.toLowerCase() : r));
}
