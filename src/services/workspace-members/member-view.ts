import { roleCeiling } from '../../domain/roles.ts';
import type { User } from '../../persistence/entities/user.ts';
import type { WorkspaceMember } from '../../persistence/entities/workspace-member.ts';

/** The WorkspaceMember object (control-plane-schemas 2.10); `id` is the user's id. */
export interface WorkspaceMemberView {
  object: 'workspace-user';
  id: string;
  first_name: string | null;
  last_name: string | null;
  org_role: string;
  role: string;
  created_at: string;
  last_updated_at: string;
  status: 'active';
  workspace_id: string;
  email: string;
  /** What the member's role allows in this workspace (the ceiling of their user keys' scopes). */
  scopes: string[];
  settings: Record<string, unknown> | null;
}

export function toMemberView(m: WorkspaceMember, u: User): WorkspaceMemberView {
  return {
    object: 'workspace-user',
    id: u.id,
    first_name: u.firstName ?? null,
    last_name: u.lastName ?? null,
    org_role: u.role,
    role: m.role,
    created_at: m.createdAt.toISOString(),
    last_updated_at: m.updatedAt.toISOString(),
    status: 'active',
    workspace_id: m.workspaceId,
    email: u.email,
    scopes: [...roleCeiling(u.role, m.role)],
    settings: null,
  };
}
