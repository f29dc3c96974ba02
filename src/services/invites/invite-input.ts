// Invite requests (control-plane-schemas 2.9) and the public accept request.
import { z } from 'zod';
import { WORKSPACE_ROLES } from '../../domain/roles.ts';

export const INVITE_ROLES = ['admin', 'member'] as const;
export const INVITE_STATUSES = ['pending', 'cancelled', 'accepted', 'expired'] as const;
export type InviteStatus = (typeof INVITE_STATUSES)[number];

export const createInviteSchema = z.strictObject({
  email: z.email({ error: 'must be a valid e-mail address' }).max(320),
  role: z.enum(INVITE_ROLES, { error: 'role must be admin or member' }),
  workspaces: z
    .array(
      z.strictObject({
        id: z.string().min(1, 'a workspace id or slug is required'),
        role: z.enum(WORKSPACE_ROLES, { error: 'role must be admin, member or manager' }),
      }),
    )
    .max(100),
  workspace_api_key_details: z
    .strictObject({ scopes: z.array(z.string().min(1)).min(1, 'at least one scope is required').max(200) })
    .nullish(),
});
export type CreateInviteInput = z.output<typeof createInviteSchema>;

export const listInvitesFilters = z.object({
  role: z.enum(INVITE_ROLES, { error: 'role must be admin or member' }).nullish(),
  email: z.string().max(320).nullish(),
  status: z.enum(INVITE_STATUSES, { error: 'status must be pending, cancelled, accepted or expired' }).nullish(),
});

export const acceptInviteSchema = z.strictObject({
  token: z.string({ error: 'token is required' }).min(1, 'token is required').max(256),
  first_name: z.string().max(255).nullish(),
  last_name: z.string().max(255).nullish(),
});
