import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../domain/errors.ts';
import { parseWith } from '../../domain/validation.ts';
import { InviteSchema } from '../../persistence/entities/index.ts';
import type { Actor } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { page, pageWindow, type Page, type PageArgs } from '../paging.ts';
import { emailIs, isUuid } from '../users/find-user.ts';
import { listInvitesFilters, type InviteStatus } from './invite-input.ts';
import { toInviteView, type InviteView } from './invite-view.ts';

export interface ListInvitesArgs extends PageArgs {
  role?: string | null;
  email?: string | null;
  status?: string | null;
}

/** The status filter as callers see statuses: a pending invite past its expiry is expired. */
function statusWhere(status: InviteStatus, now: Date): Record<string, unknown> {
  if (status === 'pending') return { status: 'pending', expiresAt: { $gt: now } };
  if (status === 'expired') return { $or: [{ status: 'expired' }, { status: 'pending', expiresAt: { $lte: now } }] };
  return { status };
}

/** `GET /admin/users/invites`: camelCase paging, filters `role`, `email`, `status`. */
export async function listInvites(em: EntityManager, actor: Actor, args: ListInvitesArgs): Promise<Page<InviteView>> {
  authorize(actor, 'invites.list');
  const window = pageWindow(args, { names: ['currentPage', 'pageSize'] });
  const f = parseWith(listInvitesFilters, { role: args.role, email: args.email, status: args.status });
  const now = new Date();
  const where: Record<string, unknown> = { organisationId: actor.organisationId };
  if (f.role) where.role = f.role;
  if (f.email) Object.assign(where, emailIs(f.email));
  if (f.status) Object.assign(where, statusWhere(f.status, now));
  const [rows, total] = await em.findAndCount(InviteSchema, where, { orderBy: { createdAt: 'desc', id: 'asc' }, ...window });
  return page(rows.map((r) => toInviteView(r, now)), total);
}

export async function getInvite(em: EntityManager, actor: Actor, id: string): Promise<InviteView> {
  authorize(actor, 'invites.read');
  if (!isUuid(id)) throw notFound('Invite', 'id');
  const invite = await em.findOne(InviteSchema, { id, organisationId: actor.organisationId });
  if (!invite) throw notFound('Invite', 'id');
  return toInviteView(invite);
}
