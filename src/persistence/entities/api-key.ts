import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { API_KEY_TYPES, type ApiKeyDefaults, type RateLimit, type UsageLimits } from '../../domain/api-key.ts';

export interface RotationPolicy {
  rotation_period?: 'weekly' | 'monthly' | null;
  rotation_period_days?: number | null;
  next_rotation_at?: string | null;
  key_transition_period_ms?: number | null;
}

export const ApiKeySchema = defineEntity({
  name: 'ApiKey',
  tableName: 'api_key',
  properties: (p) => ({
    id: p.uuid().primary(),
    organisationId: p.uuid(),
    workspaceId: p.uuid().nullable(),
    userId: p.uuid().nullable(),
    type: p.enum([...API_KEY_TYPES]),
    name: p.string(),
    description: p.text().nullable(),
    /** Hex SHA-256 of the secret; the secret itself is never stored. */
    keyHash: p.string().unique(),
    keyMask: p.string(),
    /** The secret before the last rotation, valid until previousKeyExpiresAt and never after. */
    previousKeyHash: p.string().nullable(),
    previousKeyExpiresAt: p.datetime().nullable(),
    lastRotatedAt: p.datetime().nullable(),
    /** A scheduled rotation's new secret, sealed with the secret box until its owner claims it (once). */
    pendingKeyCiphertext: p.text().nullable(),
    pendingKeyMask: p.string().length(32).nullable(),
    pendingKeyCreatedAt: p.datetime().nullable(),
    status: p.enum(['active', 'exhausted', 'revoked']).default('active'),
    scopes: p.json<string[]>(),
    rateLimits: p.json<RateLimit[]>().nullable(),
    usageLimits: p.json<UsageLimits>().nullable(),
    defaults: p.json<ApiKeyDefaults>().nullable(),
    alertEmails: p.json<string[]>().nullable(),
    expiresAt: p.datetime().nullable(),
    rotationPolicy: p.json<RotationPolicy>().nullable(),
    creationMode: p.enum(['ui', 'api', 'auto', 'bootstrap']).default('api'),
    createdBy: p.string().nullable(),
    /** Set by a trigger from the shared revision sequence on every write (ARCHITECTURE.md: versions come from PostgreSQL). */
    revision: p.bigint("number").persist(false).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
    deletedAt: p.datetime().nullable(),
  }),
});
export type ApiKey = InferEntity<typeof ApiKeySchema>;
