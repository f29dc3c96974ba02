import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { notFound } from '../../domain/errors.ts';
import { ORGANISATION_ROLES } from '../../domain/roles.ts';
import { parseWith } from '../../domain/validation.ts';
import { UserSchema } from '../../persistence/entities/index.ts';
import type { Actor } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { page, pageWindow, type Page, type PageArgs } from '../paging.ts';
import { emailIs, isUuid } from './find-user.ts';
import { toUserViews, type UserView } from './user-view.ts';

export interface ListUsersArgs extends PageArgs {
  role?: string | null;
  email?: string | null;
}

const filters = z.object({
  role: z.enum(ORGANISATION_ROLES, { error: 'role must be owner, admin or member' }).nullish(),
  email: z.string().max(320).nullish(),
});

/** `GET /admin/users`: camelCase paging (`currentPage`, `pageSize`), filters `role` and `email`. */
export async function listUsers(em: EntityManager, actor: Actor, args: ListUsersArgs): Promise<Page<UserView>> {
  authorize(actor, 'organisation_users.list');
  const window = pageWindow(args, { names: ['currentPage', 'pageSize'] });
  const f = parseWith(filters, { role: args.role, email: args.email });
  const where: Record<string, unknown> = { organisationId: actor.organisationId };
  if (f.role) where.role = f.role;
  if (f.email) Object.assign(where, emailIs(f.email));
  const [rows, total] = await em.findAndCount(UserSchema, where, { orderBy: { createdAt: 'asc', id: 'asc' }, ...window });
  return page(await toUserViews(em, rows), total);
}

export async function getUser(em: EntityManager, actor: Actor, id: string): Promise<UserView> {
  authorize(actor, 'organisation_users.read');
  if (!isUuid(id)) throw notFound('User', 'id');
  const user = await em.findOne(UserSchema, { id, organisationId: actor.organisationId });
  if (!user) throw notFound('User', 'id');
  const [view] = await toUserViews(em, [user]);
  return view!;
}
