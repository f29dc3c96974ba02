import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../domain/errors.ts';
import { ConfigSchema } from '../../persistence/entities/index.ts';
import type { Config } from '../../persistence/entities/config.ts';
import type { Actor } from '../auth/actor.ts';
import { assertVisible } from '../auth/authorize.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A live config of the caller's organisation by id or slug; 404 when absent or in another workspace of a workspace key. */
export async function findVisibleConfig(em: EntityManager, actor: Actor, idOrSlug: string): Promise<Config> {
  const where = UUID.test(idOrSlug) ? { id: idOrSlug } : { slug: idOrSlug };
  const cfg = await em.findOne(ConfigSchema, { ...where, organisationId: actor.organisationId, deletedAt: null });
  if (!cfg) throw notFound('Config', 'id');
  assertVisible(actor, cfg.workspaceId, 'Config');
  return cfg;
}

/** A live config locked for the transaction; the caller authorizes (acting on another workspace's is a 403). */
export async function findConfigForChange(em: EntityManager, actor: Actor, idOrSlug: string): Promise<Config> {
  const where = UUID.test(idOrSlug) ? { id: idOrSlug } : { slug: idOrSlug };
  const cfg = await em.findOne(ConfigSchema, { ...where, organisationId: actor.organisationId, deletedAt: null }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!cfg) throw notFound('Config', 'id');
  return cfg;
}
