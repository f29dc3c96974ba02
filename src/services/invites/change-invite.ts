import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../domain/errors.ts';
import { InviteSchema } from '../../persistence/entities/index.ts';
import type { Invite } from '../../persistence/entities/invite.ts';
import type { Actor, RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { isUuid } from '../users/find-user.ts';
import { assertNotMember, conflict } from './create-invite.ts';
import { INVITE_TTL_MS, inviteLink, newInviteToken } from './invite-token.ts';
import { inviteStatus } from './invite-view.ts';

async function lockInvite(tx: EntityManager, actor: Actor, id: string): Promise<Invite> {
  if (!isUuid(id)) throw notFound('Invite', 'id');
  const invite = await tx.findOne(InviteSchema, { id, organisationId: actor.organisationId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!invite) throw notFound('Invite', 'id');
  return invite;
}

/** `DELETE /admin/users/invites/{id}` revokes: the invite stays, cancelled, and its token stops working. */
export async function revokeInvite(em: EntityManager, actor: Actor, meta: RequestMeta, id: string): Promise<{ id: string; cancelled: true }> {
  authorize(actor, 'invites.delete');
  return em.transactional(async (tx) => {
    const invite = await lockInvite(tx, actor, id);
    if (invite.status === 'accepted' || invite.status === 'cancelled') throw conflict(`The invite is ${invite.status} already`, null);
    const previous = inviteStatus(invite);
    invite.status = 'cancelled';
    recordAudit(tx, actor, meta, {
      action: 'invite.delete',
      targetType: 'invite',
      targetId: invite.id,
      details: { email: invite.email, previous_status: previous },
    });
    return { id: invite.id, cancelled: true as const };
  });
}

/**
 * `POST /admin/users/invites/{id}/resend`: a new token (the old one stops working) and a new
 * seven-day expiry. Only pending invites, including those whose expiry has passed: renewing
 * them is what resending is for.
 */
export async function resendInvite(em: EntityManager, actor: Actor, meta: RequestMeta, id: string, opts: { baseUrl?: string | null } = {}): Promise<{ inviteLink: string }> {
  authorize(actor, 'invites.create');
  const { token, hash } = await newInviteToken();
  await em.transactional(async (tx) => {
    const invite = await lockInvite(tx, actor, id);
    if (invite.status !== 'pending') throw conflict(`Only pending invites can be resent; this one is ${invite.status}`, null);
    await assertNotMember(tx, actor.organisationId, invite.email);
    const previousExpiry = invite.expiresAt.toISOString();
    invite.tokenHash = hash;
    invite.expiresAt = new Date(Date.now() + INVITE_TTL_MS);
    recordAudit(tx, actor, meta, {
      action: 'invite.resend',
      targetType: 'invite',
      targetId: invite.id,
      details: { email: invite.email, previous_expires_at: previousExpiry, expires_at: invite.expiresAt.toISOString() },
    });
  });
  return { inviteLink: inviteLink(token, opts.baseUrl) };
}
