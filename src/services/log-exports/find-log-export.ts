import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../domain/errors.ts';
import { LogExportSchema } from '../../persistence/entities/index.ts';
import type { LogExport } from '../../persistence/entities/log-export.ts';
import { isOrganisationKey, type Actor } from '../auth/actor.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A live export in the caller's reach; archived ones (DELETE) are hidden from get and list
 * (gateway-spec, States and transitions), so they answer 404 like unknown ids.
 */
export async function findLogExport(em: EntityManager, actor: Actor, id: string, opts: { lock?: boolean } = {}): Promise<LogExport> {
  if (!UUID.test(id)) throw notFound('Export', 'exportId');
  const e = await em.findOne(
    LogExportSchema,
    { id, organisationId: actor.organisationId, archivedAt: null },
    opts.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true } : { refresh: true },
  );
  if (!e || (!isOrganisationKey(actor) && e.workspaceId !== actor.workspaceId)) throw notFound('Export', 'exportId');
  return e;
}
