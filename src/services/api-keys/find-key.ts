import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../domain/errors.ts';
import { ApiKeySchema } from '../../persistence/entities/index.ts';
import type { ApiKey } from '../../persistence/entities/api-key.ts';
import type { Actor } from '../auth/actor.ts';
import { assertMayManage } from './permissions.ts';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A live key of the caller's organisation that the caller may change, locked for the rest of
 * the transaction (so concurrent rotations and updates apply one after the other).
 * 404: unknown, deleted, or another user's user key (a person never sees those);
 * 403: a key the caller can see of but may not act on (another workspace, an organisation key
 * from a workspace key, a missing scope).
 */
export async function findKeyForChange(tx: EntityManager, actor: Actor, id: string, action: 'update' | 'delete'): Promise<ApiKey> {
  if (!UUID.test(id)) throw notFound('API key', 'id');
  const key = await tx.findOne(ApiKeySchema, { id, organisationId: actor.organisationId, deletedAt: null }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!key) throw notFound('API key', 'id');
  if (actor.userId && key.userId && key.userId !== actor.userId) throw notFound('API key', 'id');
  assertMayManage(actor, action, key.type, key.workspaceId ?? null);
  return key;
}
