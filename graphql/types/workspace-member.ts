import type { AutoCreatedKey } from '../../src/services/workspace-members/auto-create-key.ts';
import type { WorkspaceMemberView } from '../../src/services/workspace-members/member-view.ts';
import { getMember, listMembers } from '../../src/services/workspace-members/read-members.ts';
import { addMembers, removeMember, updateMember, type MemberRemoved, type MembersAdded } from '../../src/services/workspace-members/write-members.ts';
import { builder } from '../builder.ts';
import { plain } from '../input.ts';
import { pageType } from './page.ts';

// Workspace members (control-plane-schemas 2.10); field names follow the REST shapes.


export const WorkspaceMemberRef = builder.objectRef<WorkspaceMemberView>('WorkspaceMember').implement({
  description: 'A user in a workspace, with their workspace role; `id` is the user id.',
  fields: (t) => ({
    object: t.exposeString('object'),
    id: t.exposeID('id'),
    first_name: t.exposeString('first_name', { nullable: true }),
    last_name: t.exposeString('last_name', { nullable: true }),
    org_role: t.exposeString('org_role'),
    role: t.exposeString('role'),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    last_updated_at: t.expose('last_updated_at', { type: 'DateTime' }),
    status: t.exposeString('status'),
    workspace_id: t.exposeString('workspace_id'),
    email: t.exposeString('email'),
    scopes: t.exposeStringList('scopes', { description: "What the member's roles allow in this workspace." }),
    settings: t.expose('settings', { type: 'JSON', nullable: true }),
  }),
});

const WorkspaceMemberPageRef = pageType('WorkspaceMemberPage', WorkspaceMemberRef);

export const AutoCreatedApiKeyRef = builder.objectRef<AutoCreatedKey>('AutoCreatedApiKey').implement({
  description: 'A workspace user key created for a new member by the auto-create setting; the only time its secret is returned.',
  fields: (t) => ({
    id: t.exposeID('id'),
    user_id: t.exposeString('user_id'),
    workspace_id: t.exposeString('workspace_id'),
    key: t.exposeString('key'),
    scopes: t.exposeStringList('scopes'),
    object: t.exposeString('object'),
  }),
});

const MembersAddedRef = builder.objectRef<MembersAdded>('WorkspaceMembersAdded').implement({
  fields: (t) => ({
    workspace_id: t.exposeString('workspace_id'),
    added: t.exposeStringList('added', { description: 'Users who joined the workspace.' }),
    updated: t.exposeStringList('updated', { description: 'Members whose role changed.' }),
    users: t.field({ type: [WorkspaceMemberRef], resolve: (r) => r.users }),
    auto_created_api_keys: t.field({ type: [AutoCreatedApiKeyRef], resolve: (r) => r.auto_created_api_keys }),
  }),
});

const MemberRemovedRef = builder.objectRef<MemberRemoved>('WorkspaceMemberRemoved').implement({
  fields: (t) => ({
    workspace_id: t.exposeString('workspace_id'),
    user_id: t.exposeString('user_id'),
    deleted_api_keys: t.exposeInt('deleted_api_keys'),
  }),
});

const WorkspaceMemberInput = builder.inputType('WorkspaceMemberInput', {
  fields: (t) => ({ id: t.string(), role: t.string() }),
});

const AddWorkspaceMembersInput = builder.inputType('AddWorkspaceMembersInput', {
  fields: (t) => ({ users: t.field({ type: [WorkspaceMemberInput] }) }),
});

const UpdateWorkspaceMemberInput = builder.inputType('UpdateWorkspaceMemberInput', {
  fields: (t) => ({ role: t.string() }),
});

builder.queryFields((t) => ({
  workspaceMembers: t.field({
    type: WorkspaceMemberPageRef,
    args: {
      workspace_id: t.arg.id({ required: true, description: 'Workspace id or slug' }),
      current_page: t.arg.int(),
      page_size: t.arg.int(),
      role: t.arg.string(),
      email: t.arg.string(),
    },
    resolve: (_, a, ctx) =>
      listMembers(ctx.em, ctx.actor, String(a.workspace_id), { currentPage: a.current_page, pageSize: a.page_size, role: a.role, email: a.email }),
  }),
  workspaceMember: t.field({
    type: WorkspaceMemberRef,
    args: { workspace_id: t.arg.id({ required: true }), user_id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => getMember(ctx.em, ctx.actor, String(a.workspace_id), String(a.user_id)),
  }),
}));

builder.mutationFields((t) => ({
  addWorkspaceMembers: t.field({
    type: MembersAddedRef,
    errors: { directResult: true },
    args: { workspace_id: t.arg.id({ required: true }), input: t.arg({ type: AddWorkspaceMembersInput, required: true }) },
    resolve: (_, a, ctx) => addMembers(ctx.em, ctx.actor, ctx.meta, String(a.workspace_id), plain(a.input)),
  }),
  updateWorkspaceMember: t.field({
    type: WorkspaceMemberRef,
    errors: { directResult: true },
    args: {
      workspace_id: t.arg.id({ required: true }),
      user_id: t.arg.id({ required: true }),
      input: t.arg({ type: UpdateWorkspaceMemberInput, required: true }),
    },
    resolve: (_, a, ctx) => updateMember(ctx.em, ctx.actor, ctx.meta, String(a.workspace_id), String(a.user_id), plain(a.input)),
  }),
  removeWorkspaceMember: t.field({
    type: MemberRemovedRef,
    errors: { directResult: true },
    args: { workspace_id: t.arg.id({ required: true }), user_id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => removeMember(ctx.em, ctx.actor, ctx.meta, String(a.workspace_id), String(a.user_id)),
  }),
}));
