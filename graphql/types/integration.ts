import type { IntegrationDetailView, IntegrationView } from '../../src/services/integrations/integration-view.ts';
import {
  getIntegration,
  listIntegrationModels,
  listIntegrations,
  listIntegrationWorkspaces,
  type IntegrationModelView,
  type IntegrationWorkspaceView,
} from '../../src/services/integrations/read-integrations.ts';
import { deleteIntegrationModels, putIntegrationModels } from '../../src/services/integrations/write-integration-models.ts';
import { putIntegrationWorkspaces } from '../../src/services/integrations/write-integration-workspaces.ts';
import { createIntegration, deleteIntegration, updateIntegration, type IntegrationRef } from '../../src/services/integrations/write-integrations.ts';
import { builder } from '../builder.ts';
import { plain } from '../input.ts';
import { pageType } from './page.ts';

// Integrations (control-plane-schemas 2.4): organisation- or workspace-level provider
// credentials. Secrets never leave the control plane here: `masked_key` and `masked_<field>`.

const IntegrationRefType = builder.objectRef<IntegrationView | IntegrationDetailView>('Integration').implement({
  description: 'An integration; the detail fields are null in lists.',
  fields: (t) => ({
    id: t.exposeID('id'),
    organisation_id: t.exposeString('organisation_id'),
    workspace_id: t.exposeString('workspace_id', { nullable: true, description: 'Set for a workspace-scoped integration' }),
    ai_provider_id: t.exposeString('ai_provider_id'),
    name: t.exposeString('name'),
    status: t.exposeString('status'),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    last_updated_at: t.expose('last_updated_at', { type: 'DateTime' }),
    slug: t.exposeString('slug'),
    description: t.exposeString('description', { nullable: true }),
    object: t.exposeString('object'),
    masked_key: t.string({ nullable: true, resolve: (i) => ('masked_key' in i ? i.masked_key : null) }),
    configurations: t.field({ type: 'JSON', nullable: true, description: 'Secret fields only as masked_<field>', resolve: (i) => ('configurations' in i ? i.configurations : null) }),
    global_workspace_access_settings: t.field({ type: 'JSON', nullable: true, resolve: (i) => ('global_workspace_access_settings' in i ? i.global_workspace_access_settings : null) }),
    allow_all_models: t.boolean({ nullable: true, resolve: (i) => ('allow_all_models' in i ? i.allow_all_models : null) }),
    workspace_count: t.int({ nullable: true, resolve: (i) => ('workspace_count' in i ? i.workspace_count : null) }),
    secret_mappings: t.field({ type: 'JSON', nullable: true, resolve: (i) => ('secret_mappings' in i ? i.secret_mappings : null) }),
    pricing_adjustments: t.field({ type: 'JSON', nullable: true, resolve: (i) => ('pricing_adjustments' in i ? i.pricing_adjustments : null) }),
  }),
});

const IntegrationPageRef = pageType('IntegrationPage', IntegrationRefType);

const IntegrationModelRef = builder.objectRef<IntegrationModelView>('IntegrationModel').implement({
  fields: (t) => ({
    slug: t.exposeString('slug'),
    name: t.exposeString('name', { nullable: true }),
    enabled: t.exposeBoolean('enabled'),
    is_custom: t.exposeBoolean('is_custom'),
    is_finetune: t.exposeBoolean('is_finetune'),
    base_model_slug: t.exposeString('base_model_slug', { nullable: true }),
    configurations: t.field({ type: 'JSON', resolve: (m) => m.configurations }),
    custom_headers: t.field({ type: 'JSON', nullable: true, resolve: (m) => m.custom_headers }),
    pricing_config: t.field({ type: 'JSON', nullable: true, resolve: (m) => m.pricing_config }),
  }),
});

const IntegrationModelsRef = builder.objectRef<{ total: number; models: IntegrationModelView[]; allow_all_models: boolean }>('IntegrationModels').implement({
  fields: (t) => ({
    total: t.exposeInt('total'),
    allow_all_models: t.exposeBoolean('allow_all_models'),
    models: t.field({ type: [IntegrationModelRef], resolve: (m) => m.models }),
  }),
});

const IntegrationWorkspaceRef = builder.objectRef<IntegrationWorkspaceView>('IntegrationWorkspace').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    slug: t.exposeString('slug'),
    enabled: t.exposeBoolean('enabled'),
    usage_limits: t.field({ type: 'JSON', nullable: true, resolve: (w) => w.usage_limits }),
    rate_limits: t.field({ type: 'JSON', nullable: true, resolve: (w) => w.rate_limits }),
    reset_usage_at: t.exposeString('reset_usage_at', { nullable: true, description: 'The last reset_usage for this workspace' }),
  }),
});

const IntegrationWorkspacesRef = builder
  .objectRef<{ total: number; workspaces: IntegrationWorkspaceView[]; global_workspace_access: Record<string, unknown> | null }>('IntegrationWorkspaces')
  .implement({
    fields: (t) => ({
      total: t.exposeInt('total'),
      workspaces: t.field({ type: [IntegrationWorkspaceRef], resolve: (w) => w.workspaces }),
      global_workspace_access: t.field({ type: 'JSON', nullable: true, resolve: (w) => w.global_workspace_access }),
    }),
  });

const IntegrationChangeRef = builder.objectRef<IntegrationRef>('IntegrationChange').implement({
  fields: (t) => ({ id: t.exposeID('id'), slug: t.exposeString('slug') }),
});

const IntegrationIdRef = builder.objectRef<{ id: string }>('IntegrationId').implement({
  fields: (t) => ({ id: t.exposeID('id') }),
});

const CreateIntegrationInput = builder.inputType('CreateIntegrationInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    ai_provider_id: t.string({ required: true, description: 'Base provider id, e.g. openai' }),
    slug: t.string(),
    key: t.string({ description: 'The provider API key (sealed at rest, never answered)' }),
    description: t.string(),
    workspace_id: t.string({ description: 'Id or slug: a workspace-scoped integration' }),
    configurations: t.field({ type: 'JSON', description: 'Provider-specific variant (control-plane-schemas 2.4)' }),
    create_default_provider: t.boolean(),
    default_provider_slug: t.string(),
    secret_mappings: t.field({ type: 'JSON' }),
    pricing_adjustments: t.field({ type: 'JSON' }),
  }),
});

const UpdateIntegrationInput = builder.inputType('UpdateIntegrationInput', {
  fields: (t) => ({
    name: t.string(),
    key: t.string({ description: 'A new key (rotation); null removes it' }),
    description: t.string(),
    configurations: t.field({ type: 'JSON', description: 'Merged over the stored one; null removes a field' }),
    secret_mappings: t.field({ type: 'JSON' }),
    pricing_adjustments: t.field({ type: 'JSON' }),
  }),
});

const PutIntegrationModelsInput = builder.inputType('PutIntegrationModelsInput', {
  fields: (t) => ({
    models: t.field({ type: 'JSON', required: true, description: '[{slug, enabled, is_custom, is_finetune, base_model_slug, configurations {custom_host, custom_headers}, custom_headers, pricing_config}]' }),
    allow_all_models: t.boolean(),
  }),
});

const PutIntegrationWorkspacesInput = builder.inputType('PutIntegrationWorkspacesInput', {
  fields: (t) => ({
    workspaces: t.field({ type: 'JSON', description: '[{id, enabled, usage_limits, rate_limits, reset_usage, create_default_provider, default_provider_slug}]' }),
    global_workspace_access: t.field({ type: 'JSON' }),
    override_existing_workspace_access: t.boolean(),
    create_default_provider: t.boolean(),
    default_provider_slug: t.string(),
  }),
});

builder.queryFields((t) => ({
  integrations: t.field({
    type: IntegrationPageRef,
    args: {
      current_page: t.arg.int(),
      page_size: t.arg.int(),
      workspace_id: t.arg.string({ description: 'Only what this workspace may use' }),
      type: t.arg.string({ description: 'workspace | organisation | all (default)' }),
    },
    resolve: (_, a, ctx) => listIntegrations(ctx.em, ctx.actor, { currentPage: a.current_page, pageSize: a.page_size, workspaceId: a.workspace_id, type: a.type }),
  }),
  integration: t.field({
    type: IntegrationRefType,
    args: { id: t.arg.id({ required: true, description: 'Id or slug' }) },
    resolve: (_, a, ctx) => getIntegration(ctx.em, ctx.secretBox, ctx.actor, String(a.id)),
  }),
  integrationModels: t.field({
    type: IntegrationModelsRef,
    args: { id: t.arg.id({ required: true, description: 'Id or slug' }) },
    resolve: (_, a, ctx) => listIntegrationModels(ctx.em, ctx.actor, String(a.id)),
  }),
  integrationWorkspaces: t.field({
    type: IntegrationWorkspacesRef,
    args: { id: t.arg.id({ required: true, description: 'Id or slug' }) },
    resolve: (_, a, ctx) => listIntegrationWorkspaces(ctx.em, ctx.actor, String(a.id)),
  }),
}));

builder.mutationFields((t) => ({
  createIntegration: t.field({
    type: IntegrationChangeRef,
    errors: { directResult: true },
    args: { input: t.arg({ type: CreateIntegrationInput, required: true }) },
    resolve: (_, a, ctx) => createIntegration(ctx.em, ctx.secretBox, ctx.actor, ctx.meta, plain(a.input)),
  }),
  updateIntegration: t.field({
    type: IntegrationChangeRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateIntegrationInput, required: true }) },
    resolve: (_, a, ctx) => updateIntegration(ctx.em, ctx.secretBox, ctx.actor, ctx.meta, String(a.id), plain(a.input)),
  }),
  deleteIntegration: t.field({
    type: IntegrationChangeRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => deleteIntegration(ctx.em, ctx.actor, ctx.meta, String(a.id)),
  }),
  putIntegrationModels: t.field({
    type: IntegrationIdRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: PutIntegrationModelsInput, required: true }) },
    resolve: (_, a, ctx) => putIntegrationModels(ctx.em, ctx.actor, ctx.meta, String(a.id), plain(a.input)),
  }),
  deleteIntegrationModels: t.field({
    type: IntegrationIdRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), slugs: t.arg.stringList({ required: true }) },
    resolve: (_, a, ctx) => deleteIntegrationModels(ctx.em, ctx.actor, ctx.meta, String(a.id), a.slugs),
  }),
  putIntegrationWorkspaces: t.field({
    type: IntegrationIdRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: PutIntegrationWorkspacesInput, required: true }) },
    resolve: (_, a, ctx) => putIntegrationWorkspaces(ctx.em, ctx.actor, ctx.meta, String(a.id), plain(a.input)),
  }),
}));
