import type { EntityManager } from '@mikro-orm/postgresql';
import { hashApiKey, looksLikeApiKey } from '../../domain/api-key-secret.ts';
import { unauthenticated } from '../../domain/errors.ts';
import { ApiKeySchema } from '../../persistence/entities/index.ts';
import type { Actor } from './actor.ts';

/** The presented key: `x-gateway-api-key`, else `Authorization: Bearer`. */
export function presentedKey(headers: Headers): string | null {
  const direct = headers.get('x-gateway-api-key');
  if (direct) return direct.trim();
  const auth = headers.get('authorization');
  if (auth && /^bearer\s+/i.test(auth)) return auth.replace(/^bearer\s+/i, '').trim();
  return null;
}

export async function authenticate(em: EntityManager, headers: Headers): Promise<Actor> {
  const raw = presentedKey(headers);
  if (!raw) throw unauthenticated();
  if (!looksLikeApiKey(raw)) throw unauthenticated('Invalid API key.');
  const key = await em.findOne(ApiKeySchema, { keyHash: await hashApiKey(raw), deletedAt: null });
  if (!key || key.status === 'revoked') throw unauthenticated('Invalid API key.');
  if (key.expiresAt && key.expiresAt.getTime() <= Date.now()) throw unauthenticated('API key has expired.');
  return {
    kind: 'api_key',
    keyId: key.id,
    keyType: key.type,
    organisationId: key.organisationId,
    workspaceId: key.workspaceId ?? null,
    userId: key.userId ?? null,
    scopes: key.scopes,
  };
}
