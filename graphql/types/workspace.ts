import { visibleMembers } from '../../src/services/workspace-members/read-members.ts';
import { getWorkspace, listWorkspaces } from '../../src/services/workspaces/read-workspaces.ts';
import type { WorkspaceDefaultsView, WorkspaceView } from '../../src/services/workspaces/workspace-view.ts';
import { createWorkspace, deleteWorkspace, updateWorkspace, type CreatedWorkspace, type DeletedWorkspace } from '../../src/services/workspaces/write-workspaces.ts';
import { builder } from '../builder.ts';
import { plain } from '../input.ts';
import { AutoCreatedApiKeyRef, WorkspaceMemberRef } from './workspace-member.ts';
import { pageType } from './page.ts';

// Workspaces (control-plane-schemas 2.7; gateway-spec `GET, PUT /v2/workspaces/{id}`). Field names
// follow the REST shapes so the adapters pass bodies through and errors name the same fields.

const WorkspaceDefaultsRef = builder.objectRef<WorkspaceDefaultsView>('WorkspaceDefaults').implement({
  fields: (t) => ({
    metadata: t.expose('metadata', { type: 'JSON' }),
    is_default: t.exposeInt('is_default', { description: '1 for the default workspace, else 0' }),
    input_guardrails: t.exposeStringList('input_guardrails'),
    output_guardrails: t.exposeStringList('output_guardrails'),
    user_api_key_config: t.exposeString('user_api_key_config', { nullable: true, description: 'Default config (id or slug) of user keys' }),
    object: t.exposeString('object'),
  }),
});

export const WorkspaceSettingsRef = builder.objectRef<Record<string, unknown>>('WorkspaceSettings').implement({
  description: "API key settings of the workspace; null means the organisation's value applies.",
  fields: (t) => ({
    user_api_key_rotation_period: t.int({ nullable: true, description: 'Enforced rotation cadence of user keys, in days', resolve: (s) => s.user_api_key_rotation_period as number | null }),
    max_user_api_keys_per_user: t.int({ nullable: true, resolve: (s) => s.max_user_api_keys_per_user as number | null }),
    default_api_key_expiry_days: t.int({ nullable: true, resolve: (s) => s.default_api_key_expiry_days as number | null }),
    max_api_key_expiry_days: t.int({ nullable: true, resolve: (s) => s.max_api_key_expiry_days as number | null }),
    user_api_key_auto_create: t.boolean({ nullable: true, resolve: (s) => s.user_api_key_auto_create as boolean | null }),
    user_api_key_auto_create_scopes: t.stringList({ nullable: true, resolve: (s) => s.user_api_key_auto_create_scopes as string[] | null }),
  }),
});

export const WorkspaceRef = builder.objectRef<WorkspaceView | CreatedWorkspace>('Workspace').implement({
  description: 'A workspace; `users` lists its members for callers that may list them.',
  fields: (t) => ({
    id: t.exposeID('id'),
    slug: t.exposeString('slug'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    last_updated_at: t.expose('last_updated_at', { type: 'DateTime' }),
    defaults: t.field({ type: WorkspaceDefaultsRef, resolve: (w) => w.defaults }),
    settings: t.field({ type: WorkspaceSettingsRef, resolve: (w) => w.settings }),
    usage_limits: t.expose('usage_limits', { type: 'JSON' }),
    rate_limits: t.expose('rate_limits', { type: 'JSON' }),
    status: t.exposeString('status'),
    object: t.exposeString('object'),
    users: t.field({ type: [WorkspaceMemberRef], resolve: (w, _, ctx) => visibleMembers(ctx.em, ctx.actor, w.id) }),
    auto_created_api_keys: t.field({
      type: [AutoCreatedApiKeyRef],
      description: 'User keys auto-created for the initial members by createWorkspace (their only appearance); empty elsewhere.',
      resolve: (w) => ('auto_created_api_keys' in w ? w.auto_created_api_keys : []),
    }),
  }),
});

const WorkspacePageRef = pageType('WorkspacePage', WorkspaceRef);

const WorkspaceDeletedRef = builder.objectRef<DeletedWorkspace>('WorkspaceDeleted').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    slug: t.exposeString('slug'),
    deleted_api_keys: t.exposeInt('deleted_api_keys', { description: 'API keys of the workspace deleted with it' }),
  }),
});

const WorkspaceUsageLimitsInput = builder.inputType('WorkspaceUsageLimitsInput', {
  fields: (t) => ({
    credit_limit: t.float(),
    type: t.string(),
    alert_threshold: t.float(),
    periodic_reset: t.string(),
    periodic_reset_days: t.int(),
    next_usage_reset_at: t.string(),
  }),
});

const WorkspaceRateLimitInput = builder.inputType('WorkspaceRateLimitInput', {
  fields: (t) => ({ type: t.string(), unit: t.string(), value: t.int() }),
});

const WorkspaceDefaultsInput = builder.inputType('WorkspaceDefaultsInput', {
  fields: (t) => ({
    metadata: t.field({ type: 'JSON' }),
    input_guardrails: t.stringList(),
    output_guardrails: t.stringList(),
    user_api_key_config: t.string({ description: 'Config id or slug; null clears it' }),
  }),
});

const CreateWorkspaceInput = builder.inputType('CreateWorkspaceInput', {
  fields: (t) => ({
    name: t.string(),
    slug: t.string({ description: 'Generated as ws-<name>-<hex> when absent' }),
    description: t.string(),
    defaults: t.field({ type: WorkspaceDefaultsInput }),
    users: t.stringList({ description: 'Initial members (organisation user ids), role member' }),
    usage_limits: t.field({ type: [WorkspaceUsageLimitsInput] }),
    rate_limits: t.field({ type: [WorkspaceRateLimitInput] }),
    settings: t.field({ type: 'JSON', description: 'Workspace API key settings' }),
  }),
});

const UpdateWorkspaceInput = builder.inputType('UpdateWorkspaceInput', {
  fields: (t) => ({
    name: t.string(),
    description: t.string(),
    defaults: t.field({ type: WorkspaceDefaultsInput }),
    usage_limits: t.field({ type: [WorkspaceUsageLimitsInput] }),
    rate_limits: t.field({ type: [WorkspaceRateLimitInput] }),
    settings: t.field({ type: 'JSON', description: 'Merged into the stored settings; null clears a field' }),
    status: t.string({ description: 'active | archived' }),
  }),
});

builder.queryFields((t) => ({
  workspaces: t.field({
    type: WorkspacePageRef,
    args: {
      current_page: t.arg.int(),
      page_size: t.arg.int(),
      name: t.arg.string({ description: 'Case-sensitive part of the name' }),
      exact_name: t.arg.string(),
      status: t.arg.stringList({ description: 'active, archived (default: active)' }),
    },
    resolve: (_, a, ctx) =>
      listWorkspaces(ctx.em, ctx.actor, { currentPage: a.current_page, pageSize: a.page_size, name: a.name, exactName: a.exact_name, status: a.status }),
  }),
  workspace: t.field({
    type: WorkspaceRef,
    args: { id: t.arg.id({ required: true, description: 'Id or slug' }), name_format: t.arg.string({ description: 'plain' }) },
    resolve: (_, a, ctx) => getWorkspace(ctx.em, ctx.actor, String(a.id), { nameFormat: a.name_format }),
  }),
}));

builder.mutationFields((t) => ({
  createWorkspace: t.field({
    type: WorkspaceRef,
    errors: { directResult: true },
    args: { input: t.arg({ type: CreateWorkspaceInput, required: true }) },
    resolve: (_, a, ctx) => createWorkspace(ctx.em, ctx.actor, ctx.meta, plain(a.input)),
  }),
  updateWorkspace: t.field({
    type: WorkspaceRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateWorkspaceInput, required: true }) },
    resolve: (_, a, ctx) => updateWorkspace(ctx.em, ctx.actor, ctx.meta, String(a.id), plain(a.input)),
  }),
  deleteWorkspace: t.field({
    type: WorkspaceDeletedRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => deleteWorkspace(ctx.em, ctx.actor, ctx.meta, String(a.id)),
  }),
}));
