import { acceptInvite, type AcceptedInvite } from '../../src/services/invites/accept-invite.ts';
import { createInvite, type CreatedInvite } from '../../src/services/invites/create-invite.ts';
import { resendInvite, revokeInvite } from '../../src/services/invites/change-invite.ts';
import { getInvite, listInvites } from '../../src/services/invites/read-invites.ts';
import type { InviteView } from '../../src/services/invites/invite-view.ts';
import type { GraphQLContext } from '../context.ts';
import { builder } from '../builder.ts';
import { plain } from '../input.ts';
import { pageType } from './page.ts';

// Invites (control-plane-schemas 2.9). Accepting one is the schema's one public operation:
// the single-use token is the credential, so its resolver never reads ctx.actor.

/** The public base of invite links (PUBLIC_CONTROL_PLANE_URL); otherwise links are relative. */
const publicBaseUrl = (ctx: GraphQLContext): string | null => ctx.publicUrl;

const InviteWorkspaceRef = builder.objectRef<{ workspace_id: string; role: string }>('InviteWorkspace').implement({
  fields: (t) => ({ workspace_id: t.exposeString('workspace_id'), role: t.exposeString('role') }),
});

export const InviteRef = builder.objectRef<InviteView>('Invite').implement({
  description: 'An invitation to join the organisation; a pending invite past expires_at reads as expired.',
  fields: (t) => ({
    object: t.exposeString('object'),
    id: t.exposeID('id'),
    email: t.exposeString('email'),
    role: t.exposeString('role', { description: 'admin | member' }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    expires_at: t.expose('expires_at', { type: 'DateTime' }),
    accepted_at: t.expose('accepted_at', { type: 'DateTime', nullable: true }),
    status: t.exposeString('status', { description: 'pending | cancelled | accepted | expired' }),
    invited_by: t.exposeString('invited_by', { nullable: true }),
    workspaces: t.field({ type: [InviteWorkspaceRef], resolve: (i) => i.workspaces }),
  }),
});

const InvitePageRef = pageType('InvitePage', InviteRef);

const CreatedInviteRef = builder.objectRef<CreatedInvite>('CreatedInvite').implement({
  description: 'The create answer: the only time, with resend, that the invite link (and its token) is shown.',
  fields: (t) => ({ id: t.exposeID('id'), invite_link: t.exposeString('invite_link') }),
});

const ResentInviteRef = builder.objectRef<{ inviteLink: string }>('ResentInvite').implement({
  fields: (t) => ({ inviteLink: t.exposeString('inviteLink', { description: 'A new link; the previous one stops working.' }) }),
});

const RevokedInviteRef = builder.objectRef<{ id: string; cancelled: boolean }>('RevokedInvite').implement({
  fields: (t) => ({ id: t.exposeID('id'), cancelled: t.exposeBoolean('cancelled') }),
});

const InviteWorkspaceInput = builder.inputType('InviteWorkspaceInput', {
  fields: (t) => ({
    id: t.string({ required: true, description: 'Workspace id or slug.' }),
    role: t.string({ required: true, description: 'admin | member | manager' }),
  }),
});

const InviteKeyDetailsInput = builder.inputType('InviteKeyDetailsInput', {
  fields: (t) => ({ scopes: t.stringList({ required: true }) }),
});

const CreateInviteInput = builder.inputType('CreateInviteInput', {
  fields: (t) => ({
    email: t.string({ required: true }),
    role: t.string({ required: true, description: 'admin | member' }),
    workspaces: t.field({ type: [InviteWorkspaceInput], required: true }),
    workspace_api_key_details: t.field({ type: InviteKeyDetailsInput }),
  }),
});


builder.queryFields((t) => ({
  invites: t.field({
    type: InvitePageRef,
    args: {
      currentPage: t.arg.int(),
      pageSize: t.arg.int(),
      current_page: t.arg.int({ description: 'Alias of currentPage.' }),
      page_size: t.arg.int({ description: 'Alias of pageSize.' }),
      role: t.arg.string(),
      email: t.arg.string(),
      status: t.arg.string(),
    },
    resolve: (_, a, ctx) =>
      listInvites(ctx.em, ctx.actor, {
        currentPage: a.currentPage ?? a.current_page,
        pageSize: a.pageSize ?? a.page_size,
        role: a.role,
        email: a.email,
        status: a.status,
      }),
  }),
  invite: t.field({
    type: InviteRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => getInvite(ctx.em, ctx.actor, String(a.id)),
  }),
}));

builder.mutationFields((t) => ({
  createInvite: t.field({
    type: CreatedInviteRef,
    errors: { directResult: true },
    args: { input: t.arg({ type: CreateInviteInput, required: true }) },
    resolve: (_, a, ctx) => createInvite(ctx.em, ctx.actor, ctx.meta, plain(a.input), { baseUrl: publicBaseUrl(ctx) }),
  }),
  deleteInvite: t.field({
    type: RevokedInviteRef,
    errors: { directResult: true },
    description: 'Revokes the invite: it stays, with status cancelled.',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => revokeInvite(ctx.em, ctx.actor, ctx.meta, String(a.id)),
  }),
  resendInvite: t.field({
    type: ResentInviteRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => resendInvite(ctx.em, ctx.actor, ctx.meta, String(a.id), { baseUrl: publicBaseUrl(ctx) }),
  }),
}));

const AcceptedInviteRef = builder.objectRef<AcceptedInvite>('AcceptedInvite').implement({
  description: 'The new membership; api_keys carry the raw secrets this once.',
  fields: (t) => ({
    user_id: t.exposeString('user_id'),
    organisation_id: t.exposeString('organisation_id'),
    workspaces: t.field({ type: [InviteWorkspaceRef], resolve: (a) => a.workspaces }),
    api_keys: t.field({
      type: [builder.objectRef<AcceptedInvite['api_keys'][number]>('AcceptedInviteKey').implement({
        fields: (k) => ({ id: k.exposeID('id'), workspace_id: k.exposeString('workspace_id'), key: k.exposeString('key') }),
      })],
      resolve: (a) => a.api_keys,
    }),
  }),
});

const AcceptInviteInput = builder.inputType('AcceptInviteInput', {
  fields: (t) => ({ token: t.string({ required: true }), first_name: t.string(), last_name: t.string() }),
});

builder.mutationField('acceptInvite', (t) =>
  t.field({
    type: AcceptedInviteRef,
    description: 'Public: no API key; the invite token is the credential.',
    errors: { directResult: true },
    args: { input: t.arg({ type: AcceptInviteInput, required: true }) },
    resolve: (_, { input }, ctx) =>
      acceptInvite(ctx.em, ctx.meta, plain(input)),
  }),
);
