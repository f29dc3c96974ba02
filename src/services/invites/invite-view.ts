import type { Invite, InviteWorkspace } from '../../persistence/entities/invite.ts';
import type { InviteStatus } from './invite-input.ts';

/** The Invite object (control-plane-schemas 2.9). */
export interface InviteView {
  object: 'invite';
  id: string;
  email: string;
  role: 'admin' | 'member';
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  status: InviteStatus;
  invited_by: string | null;
  workspaces: InviteWorkspace[];
}

/** A pending invite past its expiry reads as expired. */
export function inviteStatus(i: Invite, now = new Date()): InviteStatus {
  if (i.status === 'pending' && i.expiresAt.getTime() <= now.getTime()) return 'expired';
  return i.status;
}

export function toInviteView(i: Invite, now = new Date()): InviteView {
  return {
    object: 'invite',
    id: i.id,
    email: i.email,
    role: i.role,
    created_at: i.createdAt.toISOString(),
    expires_at: i.expiresAt.toISOString(),
    accepted_at: i.acceptedAt ? i.acceptedAt.toISOString() : null,
    status: inviteStatus(i, now),
    invited_by: i.invitedBy ?? null,
    workspaces: i.workspaces.map((w) => ({ workspace_id: w.workspace_id, role: w.role })),
  };
}
