import type { EntityManager } from '@mikro-orm/postgresql';
import type { OrganisationRole } from '../../domain/roles.ts';
import { WorkspaceMemberSchema } from '../../persistence/entities/index.ts';
import type { User } from '../../persistence/entities/user.ts';

/** The User object of get and list answers (control-plane-schemas 2.8). */
export interface UserView {
  object: 'user';
  id: string;
  first_name: string | null;
  last_name: string | null;
  role: OrganisationRole;
  email: string;
  created_at: string;
  last_updated_at: string;
  /** The workspaces the user is a member of (workspace_member). */
  workspace_ids: string[];
}

export function toUserView(u: User, workspaceIds: string[]): UserView {
  return {
    object: 'user',
    id: u.id,
    first_name: u.firstName ?? null,
    last_name: u.lastName ?? null,
    role: u.role,
    email: u.email,
    created_at: u.createdAt.toISOString(),
    last_updated_at: u.updatedAt.toISOString(),
    workspace_ids: workspaceIds,
  };
}

/** Views for a page of users, with their memberships in one query. */
export async function toUserViews(em: EntityManager, users: User[]): Promise<UserView[]> {
  if (!users.length) return [];
  const members = await em.find(WorkspaceMemberSchema, { userId: { $in: users.map((u) => u.id) } }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  const byUser = new Map<string, string[]>();
  for (const m of members) byUser.set(m.userId, [...(byUser.get(m.userId) ?? []), m.workspaceId]);
  return users.map((u) => toUserView(u, byUser.get(u.id) ?? []));
}
