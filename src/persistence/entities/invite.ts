import { defineEntity, type InferEntity } from '@mikro-orm/core';

export interface InviteWorkspace {
  workspace_id: string;
  role: 'admin' | 'manager' | 'member';
}

export const InviteSchema = defineEntity({
  name: 'Invite',
  tableName: 'invite',
  properties: (p) => ({
    id: p.uuid().primary(),
    organisationId: p.uuid(),
    email: p.string(),
    role: p.enum(['admin', 'member']),
    workspaces: p.json<InviteWorkspace[]>(),
    /** Scopes of the workspace user key created for the invitee on acceptance. */
    workspaceApiKeyScopes: p.json<string[]>().nullable(),
    /** SHA-256 of the single-use token; the token itself is only in the invite link. */
    tokenHash: p.string().unique(),
    status: p.enum(['pending', 'cancelled', 'accepted', 'expired']).default('pending'),
    expiresAt: p.datetime(),
    acceptedAt: p.datetime().nullable(),
    acceptedUserId: p.uuid().nullable(),
    invitedBy: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type Invite = InferEntity<typeof InviteSchema>;
