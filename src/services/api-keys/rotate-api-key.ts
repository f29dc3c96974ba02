import type { EntityManager } from '@mikro-orm/postgresql';
import { DAY_MS, rotateApiKeySchema, rotationPeriodDays } from '../../domain/api-key-input.ts';
import { invalidParameter } from '../../domain/errors.ts';
import { parseWith } from '../../domain/validation.ts';
import type { ApiKey } from '../../persistence/entities/api-key.ts';
import type { Actor, RequestMeta } from '../auth/actor.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { findKeyForChange } from './find-key.ts';
import { secretMaterial } from './issue-key.ts';
import { DEFAULT_TRANSITION_MS, policyAfterRotation, type StoredRotationPolicy } from './key-rules.ts';

export interface RotatedApiKey {
  id: string;
  /** The new secret: shown this once. */
  key: string;
  /** When the previous secret stops working. */
  key_transition_expires_at: string;
}

/** What a rotation leaves behind besides the new secret. */
export interface AppliedRotation {
  transitionEndsAt: Date;
  /** A still-valid older previous secret ended at once (only one previous secret is kept). */
  replacedPrevious: boolean;
  /** An unclaimed secret of an earlier scheduled rotation was discarded (it is now the previous secret, or gone). */
  discardedPending: boolean;
}

/**
 * Gives the key a new secret; the one it had keeps working until the transition ends
 * (`key_transition_period_ms` of the request, else of the policy, else 24 hours), then never
 * again. Only one previous secret is kept: rotating again ends the older one at once.
 * `pending` is the new secret sealed for its owner to claim (scheduled rotation); without it
 * (manual rotation: the caller gets the secret in the answer) an unclaimed one is discarded.
 */
export function applyRotation(
  key: ApiKey,
  material: { keyHash: string; keyMask: string },
  transitionMs: number,
  now: Date,
  pending: { ciphertext: string } | null = null,
): AppliedRotation {
  const replacedPrevious = !!key.previousKeyHash && !!key.previousKeyExpiresAt && key.previousKeyExpiresAt.getTime() > now.getTime();
  const discardedPending = key.pendingKeyCiphertext != null;
  const transitionEndsAt = new Date(now.getTime() + transitionMs);
  key.previousKeyHash = key.keyHash;
  key.previousKeyExpiresAt = transitionEndsAt;
  key.keyHash = material.keyHash;
  key.keyMask = material.keyMask;
  key.lastRotatedAt = now;
  key.rotationPolicy = policyAfterRotation((key.rotationPolicy as StoredRotationPolicy | null) ?? null, now);
  key.pendingKeyCiphertext = pending?.ciphertext ?? null;
  key.pendingKeyMask = pending ? material.keyMask : null;
  key.pendingKeyCreatedAt = pending ? now : null;
  return { transitionEndsAt, replacedPrevious, discardedPending };
}

/** The sealed-value context of a key's pending secret: it only opens for that key's row. */
export const pendingSecretContext = (keyId: string): string => `api_key.pending_key:${keyId}`;

/**
 * `POST /api-keys/{id}/rotate` → `{id, key, key_transition_expires_at}`; one audit event, no secret in it.
 * An unclaimed secret of a scheduled rotation is discarded: the caller gets the new one here.
 */
export async function rotateApiKey(em: EntityManager, actor: Actor, meta: RequestMeta, id: string, rawInput: unknown): Promise<RotatedApiKey> {
  const input = parseWith(rotateApiKeySchema, rawInput ?? {});
  return em.transactional(async (tx) => {
    const key = await findKeyForChange(tx, actor, id, 'update');
    const policy = (key.rotationPolicy as StoredRotationPolicy | null) ?? null;
    const transitionMs = input.key_transition_period_ms ?? policy?.key_transition_period_ms ?? DEFAULT_TRANSITION_MS;
    const periodDays = policy ? rotationPeriodDays(policy) : null;
    if (input.key_transition_period_ms != null && periodDays != null && input.key_transition_period_ms >= periodDays * DAY_MS) {
      throw invalidParameter('key_transition_period_ms', 'key_transition_period_ms: must be shorter than the key\'s rotation period');
    }
    const material = await secretMaterial();
    const now = new Date();
    const { transitionEndsAt, replacedPrevious, discardedPending } = applyRotation(key, material, transitionMs, now);
    recordAudit(tx, actor, meta, {
      action: 'api_key.rotate',
      targetType: 'api_key',
      targetId: key.id,
      workspaceId: key.workspaceId ?? null,
      details: {
        scheduled: false,
        key_transition_period_ms: transitionMs,
        key_transition_expires_at: transitionEndsAt.toISOString(),
        older_previous_secret_ended: replacedPrevious,
        unclaimed_secret_discarded: discardedPending,
        next_rotation_at: (key.rotationPolicy as StoredRotationPolicy | null)?.next_rotation_at ?? null,
      },
    });
    return { id: key.id, key: material.secret, key_transition_expires_at: transitionEndsAt.toISOString() };
  });
}
