import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor, RequestMeta } from '../auth/actor.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { findKeyForChange } from './find-key.ts';

export interface DeletedApiKey {
  id: string;
  object: 'api-key';
  deleted: true;
}

/**
 * `DELETE /api-keys/{id}`: a soft delete (deleted_at). The key stops authenticating on the
 * control plane at once and on workers within their key-cache TTL. A key may delete itself
 * (its next request is refused).
 */
export async function deleteApiKey(em: EntityManager, actor: Actor, meta: RequestMeta, id: string): Promise<DeletedApiKey> {
  return em.transactional(async (tx) => {
    const key = await findKeyForChange(tx, actor, id, 'delete');
    key.deletedAt = new Date();
    // An unclaimed secret of a scheduled rotation goes with the key.
    key.pendingKeyCiphertext = null;
    key.pendingKeyMask = null;
    key.pendingKeyCreatedAt = null;
    recordAudit(tx, actor, meta, {
      action: 'api_key.delete',
      targetType: 'api_key',
      targetId: key.id,
      workspaceId: key.workspaceId ?? null,
      details: { type: key.type, name: key.name, self: key.id === actor.keyId },
    });
    return { id: key.id, object: 'api-key' as const, deleted: true as const };
  });
}
