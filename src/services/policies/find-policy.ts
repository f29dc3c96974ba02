import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../domain/errors.ts';
import { RateLimitPolicySchema, UsageLimitPolicySchema } from '../../persistence/entities/index.ts';
import type { RateLimitPolicy } from '../../persistence/entities/rate-limit-policy.ts';
import type { UsageLimitPolicy } from '../../persistence/entities/usage-limit-policy.ts';
import type { Actor } from '../auth/actor.ts';
import { assertVisible } from '../auth/authorize.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Policies are addressed by id; anything else is simply not found. */
function idOrNull(id: string): string | null {
  return UUID.test(id) ? id.toLowerCase() : null;
}

/** A rate-limit policy of the caller's organisation with this status (default active: control-plane-schemas 2.11). */
export async function findVisibleRateLimitPolicy(em: EntityManager, actor: Actor, id: string, status = 'active'): Promise<RateLimitPolicy> {
  const pid = idOrNull(id);
  const p = pid ? await em.findOne(RateLimitPolicySchema, { id: pid, organisationId: actor.organisationId, status }) : null;
  if (!p) throw notFound('Rate limit policy', 'id');
  assertVisible(actor, p.workspaceId, 'Rate limit policy');
  return p;
}

export async function findVisibleUsageLimitPolicy(em: EntityManager, actor: Actor, id: string, status = 'active'): Promise<UsageLimitPolicy> {
  const pid = idOrNull(id);
  const p = pid ? await em.findOne(UsageLimitPolicySchema, { id: pid, organisationId: actor.organisationId, status }) : null;
  if (!p) throw notFound('Usage limit policy', 'id');
  assertVisible(actor, p.workspaceId, 'Usage limit policy');
  return p;
}

/** An active policy locked for the transaction; the caller authorizes (another workspace's is a 403). */
export async function lockRateLimitPolicy(em: EntityManager, actor: Actor, id: string): Promise<RateLimitPolicy> {
  const pid = idOrNull(id);
  const p = pid
    ? await em.findOne(RateLimitPolicySchema, { id: pid, organisationId: actor.organisationId, status: 'active' }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true })
    : null;
  if (!p) throw notFound('Rate limit policy', 'id');
  return p;
}

export async function lockUsageLimitPolicy(em: EntityManager, actor: Actor, id: string): Promise<UsageLimitPolicy> {
  const pid = idOrNull(id);
  const p = pid
    ? await em.findOne(UsageLimitPolicySchema, { id: pid, organisationId: actor.organisationId, status: 'active' }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true })
    : null;
  if (!p) throw notFound('Usage limit policy', 'id');
  return p;
}
