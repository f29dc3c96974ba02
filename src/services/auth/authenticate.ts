import type { EntityManager } from '@mikro-orm/postgresql';
import { hashApiKey, looksLikeApiKey } from '../../domain/api-key-secret.ts';
import { unauthenticated } from '../../domain/errors.ts';
import { intersectScopes, roleCeiling } from '../../domain/roles.ts';
import { ApiKeySchema, UserSchema, WorkspaceMemberSchema } from '../../persistence/entities/index.ts';
import type { ApiKey } from '../../persistence/entities/api-key.ts';
import type { Actor } from './actor.ts';

/** The presented key: `x-gateway-api-key`, else `Authorization: Bearer`. */
export function presentedKey(headers: Headers): string | null {
  const direct = headers.get('x-gateway-api-key');
  if (direct) return direct.trim();
  const auth = headers.get('authorization');
  if (auth && /^bearer\s+/i.test(auth)) return auth.replace(/^bearer\s+/i, '').trim();
  return null;
}

/** A key by its secret's hash: the current secret, or the previous one within its transition period. */
export async function findKeyByHash(em: EntityManager, keyHash: string, now = new Date()): Promise<ApiKey | null> {
  const current = await em.findOne(ApiKeySchema, { keyHash, deletedAt: null });
  if (current) return current;
  return em.findOne(ApiKeySchema, { previousKeyHash: keyHash, previousKeyExpiresAt: { $gt: now }, deletedAt: null });
}

export async function authenticate(em: EntityManager, headers: Headers): Promise<Actor> {
  const raw = presentedKey(headers);
  if (!raw) throw unauthenticated();
  if (!looksLikeApiKey(raw)) throw unauthenticated('Invalid API key.');
  const key = await findKeyByHash(em, await hashApiKey(raw));
  if (!key || key.status === 'revoked') throw unauthenticated('Invalid API key.');
  if (key.expiresAt && key.expiresAt.getTime() <= Date.now()) throw unauthenticated('API key has expired.');
  return actorForKey(em, key);
}

/** A user key acts with its scopes bounded by what its user's roles allow now. */
export async function actorForKey(em: EntityManager, key: ApiKey): Promise<Actor> {
  let orgRole: Actor['orgRole'] = null;
  let workspaceRole: Actor['workspaceRole'] = null;
  let scopes = key.scopes;
  if (key.userId) {
    const user = await em.findOne(UserSchema, { id: key.userId, organisationId: key.organisationId });
    orgRole = user?.role ?? null;
    if (key.workspaceId) {
      const membership = await em.findOne(WorkspaceMemberSchema, { workspaceId: key.workspaceId, userId: key.userId });
      workspaceRole = membership?.role ?? null;
    }
    scopes = user ? intersectScopes(key.scopes, roleCeiling(orgRole, workspaceRole)) : [];
  }
  return {
    kind: 'api_key',
    keyId: key.id,
    keyType: key.type,
    organisationId: key.organisationId,
    workspaceId: key.workspaceId ?? null,
    userId: key.userId ?? null,
    orgRole,
    workspaceRole,
    scopes,
  };
}
