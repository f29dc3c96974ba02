import type { EntityManager } from '@mikro-orm/postgresql';
import { generateApiKeySecret, hashApiKey, maskApiKey } from '../../domain/api-key-secret.ts';
import { ApiKeySchema } from '../../persistence/entities/index.ts';
import type { ApiKey } from '../../persistence/entities/api-key.ts';

type KeyFields = Omit<ApiKey, 'id' | 'keyHash' | 'keyMask' | 'revision' | 'createdAt' | 'updatedAt' | 'deletedAt' | 'status' | 'previousKeyHash' | 'previousKeyExpiresAt' | 'lastRotatedAt'>;

/**
 * Creates the key row (in the caller's unit of work) and returns the raw secret, which is
 * never stored: only its SHA-256 and a mask are (issue 2, control plane slice).
 */
export async function issueKey(em: EntityManager, fields: KeyFields, rawSecret = generateApiKeySecret()): Promise<{ entity: ApiKey; secret: string }> {
  const entity = em.create(ApiKeySchema, {
    id: crypto.randomUUID(),
    ...fields,
    keyHash: await hashApiKey(rawSecret),
    keyMask: maskApiKey(rawSecret),
    status: 'active',
  });
  return { entity, secret: rawSecret };
}
