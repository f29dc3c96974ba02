import type { EntityManager } from '@mikro-orm/postgresql';
import { generateApiKeySecret, hashApiKey, maskApiKey } from '../../domain/api-key-secret.ts';
import { ApiKeySchema } from '../../persistence/entities/index.ts';
import type { ApiKey } from '../../persistence/entities/api-key.ts';

type KeyFields = Omit<ApiKey, 'id' | 'keyHash' | 'keyMask' | 'revision' | 'createdAt' | 'updatedAt' | 'deletedAt' | 'status' | 'previousKeyHash' | 'previousKeyExpiresAt' | 'lastRotatedAt' | 'pendingKeyCiphertext' | 'pendingKeyMask' | 'pendingKeyCreatedAt'>;

export interface SecretMaterial {
  /** The raw secret: shown once to the caller, never stored. */
  secret: string;
  keyHash: string;
  keyMask: string;
}

/** A secret and what is stored of it (its SHA-256 and a mask); used on create and on rotation. */
export async function secretMaterial(rawSecret = generateApiKeySecret()): Promise<SecretMaterial> {
  return { secret: rawSecret, keyHash: await hashApiKey(rawSecret), keyMask: maskApiKey(rawSecret) };
}

/**
 * Creates the key row (in the caller's unit of work) and returns the raw secret, which is
 * never stored: only its SHA-256 and a mask are (issue 2, control plane slice).
 */
export async function issueKey(em: EntityManager, fields: KeyFields, rawSecret = generateApiKeySecret()): Promise<{ entity: ApiKey; secret: string }> {
  const { secret, keyHash, keyMask } = await secretMaterial(rawSecret);
  const entity = em.create(ApiKeySchema, {
    id: crypto.randomUUID(),
    ...fields,
    keyHash,
    keyMask,
    status: 'active',
  });
  return { entity, secret };
}
