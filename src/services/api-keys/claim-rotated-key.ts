import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../domain/errors.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import type { Actor, RequestMeta } from '../auth/actor.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { findKeyForChange } from './find-key.ts';
import { pendingSecretContext } from './rotate-api-key.ts';

export interface ClaimedRotatedApiKey {
  id: string;
  /** The secret the scheduled rotation issued: returned this once, then gone from the database. */
  key: string;
  /** When the scheduled rotation issued it. */
  rotated_at: string;
  /** When the secret before it stops working. */
  key_transition_expires_at: string;
}

const noPendingSecret = (): AppError =>
  new AppError(404, 'not_found_error', 'no_pending_secret', 'This API key has no rotated secret waiting to be claimed (it was claimed already, or the key was rotated by hand since).', 'id');

/**
 * `POST /api-keys/{id}/rotation/claim`: the new secret of a scheduled rotation, once. The sealed
 * secret is cleared in the same transaction that reads it, so of two concurrent claims one gets
 * it and the other 404 `no_pending_secret`. Needs the key's update permission (as rotate does).
 * One audit event, without the secret.
 */
export async function claimRotatedApiKey(em: EntityManager, box: SecretBox, actor: Actor, meta: RequestMeta, id: string): Promise<ClaimedRotatedApiKey> {
  return em.transactional(async (tx) => {
    const key = await findKeyForChange(tx, actor, id, 'update');
    if (key.pendingKeyCiphertext == null || key.pendingKeyCreatedAt == null) throw noPendingSecret();
    let secret: string;
    try {
      secret = box.open(key.pendingKeyCiphertext, pendingSecretContext(key.id));
    } catch {
      // Kept (not cleared) so that restoring the right GATEWAY_SECRET_KEY makes it claimable again.
      throw new AppError(500, 'server_error', 'pending_secret_unreadable', 'The rotated secret cannot be decrypted with this control plane\'s GATEWAY_SECRET_KEY; rotate the key to issue a new one.');
    }
    const rotatedAt = key.pendingKeyCreatedAt;
    const transitionEndsAt = key.previousKeyExpiresAt ?? rotatedAt;
    key.pendingKeyCiphertext = null;
    key.pendingKeyMask = null;
    key.pendingKeyCreatedAt = null;
    recordAudit(tx, actor, meta, {
      action: 'api_key.claim_rotated_secret',
      targetType: 'api_key',
      targetId: key.id,
      workspaceId: key.workspaceId ?? null,
      details: {
        type: key.type,
        self: key.id === actor.keyId,
        rotated_at: rotatedAt.toISOString(),
        key_transition_expires_at: transitionEndsAt.toISOString(),
      },
    });
    return { id: key.id, key: secret, rotated_at: rotatedAt.toISOString(), key_transition_expires_at: transitionEndsAt.toISOString() };
  });
}
