import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidParameter, notFound } from '../../domain/errors.ts';
import { WORKSPACE_ROLES, type WorkspaceRole } from '../../domain/roles.ts';
import { hasScope } from '../../domain/scopes.ts';
import { UserSchema, WorkspaceMemberSchema } from '../../persistence/entities/index.ts';
import type { WorkspaceMember } from '../../persistence/entities/workspace-member.ts';
import type { Actor } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { page, pageWindow, type Page, type PageArgs } from '../paging.ts';
import { requireWorkspace } from '../workspaces/read-workspaces.ts';
import { toMemberView, type WorkspaceMemberView } from './member-view.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string): boolean => UUID.test(s);

export interface ListMembersArgs extends PageArgs {
  role?: string | null;
  email?: string | null;
}

const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

async function views(em: EntityManager, members: WorkspaceMember[]): Promise<WorkspaceMemberView[]> {
  if (!members.length) return [];
  const users = await em.find(UserSchema, { id: { $in: members.map((m) => m.userId) } });
  const byId = new Map(users.map((u) => [u.id, u]));
  return members.flatMap((m) => {
    const u = byId.get(m.userId);
    return u ? [toMemberView(m, u)] : [];
  });
}

export async function listMembers(em: EntityManager, actor: Actor, workspaceRef: string, args: ListMembersArgs): Promise<Page<WorkspaceMemberView>> {
  authorize(actor, 'workspace_users.list');
  const window = pageWindow(args);
  if (args.role != null && args.role !== '' && !(WORKSPACE_ROLES as readonly string[]).includes(args.role)) {
    throw invalidParameter('role', `role must be one of ${WORKSPACE_ROLES.join(', ')}`);
  }
  const ws = await requireWorkspace(em, actor, workspaceRef, 'workspace_id');
  const where: Record<string, unknown> = { workspaceId: ws.id };
  if (args.role) where.role = args.role as WorkspaceRole;
  if (args.email) {
    const users = await em.find(UserSchema, { organisationId: actor.organisationId, email: { $ilike: escapeLike(args.email.trim()) } }, { fields: ['id'] });
    where.userId = { $in: users.map((u) => u.id) };
  }
  const [rows, total] = await em.findAndCount(WorkspaceMemberSchema, where, { orderBy: { createdAt: 'asc', userId: 'asc' }, ...window });
  return page(await views(em, rows), total);
}

export async function getMember(em: EntityManager, actor: Actor, workspaceRef: string, userId: string): Promise<WorkspaceMemberView> {
  authorize(actor, 'workspace_users.read');
  const ws = await requireWorkspace(em, actor, workspaceRef, 'workspace_id');
  const m = isUuid(userId) ? await em.findOne(WorkspaceMemberSchema, { workspaceId: ws.id, userId }) : null;
  const [view] = m ? await views(em, [m]) : [];
  if (!view) throw notFound('Workspace member', 'user_id');
  return view;
}

/**
 * The `users` of a workspace get (WorkspaceWithUsers): listed for callers that may list members,
 * empty for the others (a workspace key reading its own workspace sees no people).
 */
export async function visibleMembers(em: EntityManager, actor: Actor, workspaceId: string): Promise<WorkspaceMemberView[]> {
  if (!hasScope(actor.scopes, 'workspace_users.list')) return [];
  const rows = await em.find(WorkspaceMemberSchema, { workspaceId }, { orderBy: { createdAt: 'asc', userId: 'asc' } });
  return views(em, rows);
}
