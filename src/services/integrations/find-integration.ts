import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../domain/errors.ts';
import { IntegrationSchema } from '../../persistence/entities/index.ts';
import type { Integration } from '../../persistence/entities/integration.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An integration of the organisation by id or slug (control-plane-schemas 1.4); 404 naming `param` otherwise. */
export async function findIntegration(em: EntityManager, organisationId: string, idOrSlug: string, opts: { lock?: boolean; param?: string } = {}): Promise<Integration> {
  const where = UUID.test(idOrSlug) ? { id: idOrSlug } : { slug: idOrSlug };
  const found = await em.findOne(
    IntegrationSchema,
    { ...where, organisationId },
    opts.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true } : {},
  );
  if (!found) throw notFound('Integration', opts.param ?? 'slug');
  return found;
}
