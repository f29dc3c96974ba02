import type { ResolvedKey } from '../../src/domain/api-key.ts';
import { looksLikeApiKey } from '../../src/domain/api-key-secret.ts';
import { AppError } from '../../src/domain/errors.ts';
import { hasScope } from '../../src/domain/scopes.ts';
import { ControlPlaneUnavailable, type KeyHasher } from '../contracts.ts';
import type { KeyCache } from '../sync/key-cache.ts';
import { missingApiKey } from './gateway-headers.ts';

const invalidKey = () => new AppError(401, 'authentication_error', 'invalid_api_key', 'Invalid API key.');

/** ARCHITECTURE.md request flow, step 2: hash, cache, control plane on a miss; status, expiry, scope. */
export async function authenticate(apiKey: string | null, keys: KeyCache, hashKey: KeyHasher, scope: string, now: number): Promise<ResolvedKey> {
  if (!apiKey) throw missingApiKey();
  if (!looksLikeApiKey(apiKey)) throw invalidKey();
  let key: ResolvedKey | null;
  try {
    key = await keys.get(await hashKey(apiKey));
  } catch (err) {
    if (err instanceof ControlPlaneUnavailable) {
      throw new AppError(503, 'service_unavailable_error', 'control_plane_unavailable', 'The API key cannot be verified right now: the control plane is unreachable. Retry shortly.');
    }
    throw err;
  }
  if (!key || key.status === 'revoked') throw invalidKey();
  if (key.expiresAt !== null && key.expiresAt <= now) throw new AppError(401, 'authentication_error', 'api_key_expired', 'The API key has expired.');
  if (key.status === 'exhausted') throw new AppError(429, 'rate_limit_error', 'usage_limit_exceeded', "The API key's usage limit is exhausted.");
  if (!hasScope(key.scopes, scope)) throw new AppError(403, 'permission_error', 'missing_scope', `The API key lacks the ${scope} scope.`);
  return key;
}
