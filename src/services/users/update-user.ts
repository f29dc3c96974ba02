import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { AppError, notFound } from '../../domain/errors.ts';
import { parseWith } from '../../domain/validation.ts';
import { UserSchema } from '../../persistence/entities/index.ts';
import type { User } from '../../persistence/entities/user.ts';
import type { Actor, RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { isUuid } from './find-user.ts';
import { toUserViews, type UserView } from './user-view.ts';

/** Update body (control-plane-schemas 2.8): `role` ∈ admin | member; owner cannot be assigned. */
export const updateUserSchema = z.strictObject({
  role: z.enum(['admin', 'member'], {
    error: (issue) =>
      issue.input === undefined ? 'role is required' : issue.input === 'owner' ? 'The owner role cannot be assigned' : 'role must be admin or member',
  }),
});

export const lastOwner = (what: string, param: string | null): AppError =>
  new AppError(409, 'conflict_error', 'conflict', `The organisation's last owner cannot be ${what}`, param);

/**
 * Loads the target user with the organisation's owners locked, so two concurrent demotions or
 * removals cannot leave the organisation without an owner.
 */
export async function lockUserAndOwners(tx: EntityManager, organisationId: string, id: string): Promise<{ user: User; owners: number }> {
  if (!isUuid(id)) throw notFound('User', 'id');
  // Owners first, then the target: one lock order for every caller.
  const owners = await tx.find(UserSchema, { organisationId, role: 'owner' }, { lockMode: LockMode.PESSIMISTIC_WRITE, orderBy: { id: 'asc' } });
  const user = await tx.findOne(UserSchema, { id, organisationId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!user) throw notFound('User', 'id');
  return { user, owners: owners.length };
}

export async function updateUser(em: EntityManager, actor: Actor, meta: RequestMeta, id: string, input: unknown): Promise<UserView> {
  authorize(actor, 'organisation_users.update');
  const { role } = parseWith(updateUserSchema, input);
  return em.transactional(async (tx) => {
    const { user, owners } = await lockUserAndOwners(tx, actor.organisationId, id);
    const previous = user.role;
    if (previous === 'owner' && owners <= 1) throw lastOwner('demoted', 'role');
    user.role = role;
    recordAudit(tx, actor, meta, {
      action: 'user.update',
      targetType: 'user',
      targetId: user.id,
      details: { email: user.email, role, previous_role: previous },
    });
    await tx.flush();
    const [view] = await toUserViews(tx, [user]);
    return view!;
  });
}
