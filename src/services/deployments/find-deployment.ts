import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../domain/errors.ts';
import { DeploymentSchema } from '../../persistence/entities/index.ts';
import type { Deployment } from '../../persistence/entities/deployment.ts';
import type { Actor } from '../auth/actor.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A deployment of the caller's organisation by id or slug. */
export async function findDeployment(em: EntityManager, actor: Actor, idOrSlug: string, lock = false): Promise<Deployment> {
  const where = UUID.test(idOrSlug) ? { id: idOrSlug } : { slug: idOrSlug };
  const d = await em.findOne(DeploymentSchema, { ...where, organisationId: actor.organisationId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true } : {});
  if (!d) throw notFound('Deployment', 'id');
  return d;
}

/** The sealing context of a deployment's credentials password. */
export const deploymentSecretContext = (id: string): string => `deployment:${id}`;
