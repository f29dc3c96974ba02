import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKeySchema } from '../../persistence/entities/index.ts';
import type { Actor, RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { lastOwner, lockUserAndOwners } from './update-user.ts';

export interface DeletedUser {
  id: string;
  object: 'user';
  deleted: true;
}

/**
 * Removes a user from the organisation. Their user keys are soft-deleted first (deleted_at, which
 * also bumps each key's revision for the workers) so they stop working at once; then the user row
 * goes, and its memberships with it (on delete cascade).
 */
export async function deleteUser(em: EntityManager, actor: Actor, meta: RequestMeta, id: string): Promise<DeletedUser> {
  authorize(actor, 'organisation_users.delete');
  return em.transactional(async (tx) => {
    const { user, owners } = await lockUserAndOwners(tx, actor.organisationId, id);
    if (user.role === 'owner' && owners <= 1) throw lastOwner('removed', null);
    const keys = await tx.find(ApiKeySchema, { userId: user.id, organisationId: actor.organisationId, deletedAt: null }, { fields: ['id'] });
    const now = new Date();
    if (keys.length) await tx.nativeUpdate(ApiKeySchema, { id: { $in: keys.map((k) => k.id) } }, { deletedAt: now, updatedAt: now });
    recordAudit(tx, actor, meta, {
      action: 'user.delete',
      targetType: 'user',
      targetId: user.id,
      details: { email: user.email, role: user.role, deleted_api_key_ids: keys.map((k) => k.id) },
    });
    tx.remove(user);
    await tx.flush();
    return { id: user.id, object: 'user' as const, deleted: true as const };
  });
}
