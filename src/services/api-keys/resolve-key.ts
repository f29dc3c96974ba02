import type { EntityManager } from '@mikro-orm/postgresql';
import type { ResolvedKey } from '../../domain/api-key.ts';
import { actorForKey, findKeyByHash } from '../auth/authenticate.ts';

/**
 * What a worker needs to admit a request with this key (gRPC ResolveKey): effective scopes
 * (bounded by the user's role for user keys) and, for a rotated-out secret, when it stops
 * working. Deleted keys are unknown.
 */
export async function resolveKeyByHash(em: EntityManager, keyHash: string): Promise<ResolvedKey | null> {
  if (!/^[0-9a-f]{64}$/.test(keyHash)) return null;
  const k = await findKeyByHash(em, keyHash);
  if (!k) return null;
  const actor = await actorForKey(em, k);
  // `revision` is trigger-maintained and not hydrated by the ORM.
  const [row] = await em.getConnection().execute<{ revision: string }[]>('select revision from api_key where id = ?', [k.id]);
  const isPrevious = k.keyHash !== keyHash;
  const expiries = [k.expiresAt?.getTime() ?? null, isPrevious ? (k.previousKeyExpiresAt?.getTime() ?? null) : null].filter((v): v is number => v !== null);
  return {
    id: k.id,
    organisationId: k.organisationId,
    workspaceId: k.workspaceId ?? null,
    userId: k.userId ?? null,
    type: k.type,
    status: k.status,
    scopes: actor.scopes,
    expiresAt: expiries.length ? Math.min(...expiries) : null,
    rateLimits: k.rateLimits ?? [],
    usageLimits: k.usageLimits ?? null,
    defaults: k.defaults ?? {},
    version: Number(row?.revision ?? 0),
  };
}
