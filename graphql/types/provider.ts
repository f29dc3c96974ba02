import { listProviderModels, type ProviderModelView } from '../../src/services/providers/provider-models.ts';
import { getProvider, listProviders } from '../../src/services/providers/read-providers.ts';
import type { ProviderView } from '../../src/services/providers/provider-view.ts';
import { createProvider, deleteProvider, updateProvider, type ProviderRef } from '../../src/services/providers/write-providers.ts';
import { builder } from '../builder.ts';
import { plain } from '../input.ts';
import { pageType } from './page.ts';

// Providers (control-plane-schemas 2.5): workspace-level instances of integrations, `@slug` on the data plane.

const ProviderObjectRef = builder.objectRef<ProviderView>('Provider').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    workspace_id: t.exposeString('workspace_id'),
    name: t.exposeString('name'),
    integration_id: t.exposeString('integration_id', { description: "The integration's slug" }),
    note: t.exposeString('note', { nullable: true }),
    status: t.exposeString('status', { description: 'active | exhausted | expired' }),
    usage_limits: t.field({ type: 'JSON', nullable: true, resolve: (p) => p.usage_limits }),
    reset_usage: t.exposeFloat('reset_usage', { nullable: true }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    slug: t.exposeString('slug'),
    rate_limits: t.field({ type: 'JSON', nullable: true, resolve: (p) => p.rate_limits }),
    expires_at: t.expose('expires_at', { type: 'DateTime', nullable: true }),
    object: t.exposeString('object'),
  }),
});

const ProviderPageRef = pageType('ProviderPage', ProviderObjectRef);

const ProviderModelRef = builder.objectRef<ProviderModelView>('ProviderModel').implement({
  description: 'A model reachable through a provider, named `@<provider slug>/<model>`.',
  fields: (t) => ({
    id: t.exposeID('id'),
    slug: t.exposeString('slug'),
    provider: t.exposeString('provider'),
    workspace_id: t.exposeString('workspace_id'),
    integration_id: t.exposeString('integration_id'),
    ai_provider_id: t.exposeString('ai_provider_id'),
    is_custom: t.exposeBoolean('is_custom'),
    allow_all_models: t.exposeBoolean('allow_all_models'),
    object: t.exposeString('object'),
  }),
});

const ProviderModelPageRef = pageType('ProviderModelPage', ProviderModelRef);

const ProviderChangeRef = builder.objectRef<ProviderRef>('ProviderChange').implement({
  fields: (t) => ({ id: t.exposeID('id'), slug: t.exposeString('slug') }),
});

const CreateProviderInput = builder.inputType('CreateProviderInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    integration_id: t.string({ required: true, description: "The integration's slug (or id)" }),
    workspace_id: t.string({ description: 'Id or slug; required for organisation API keys' }),
    slug: t.string(),
    note: t.string(),
    usage_limits: t.field({ type: 'JSON' }),
    rate_limits: t.field({ type: 'JSON', description: 'One object (or an array of one)' }),
    expires_at: t.string(),
  }),
});

const UpdateProviderInput = builder.inputType('UpdateProviderInput', {
  fields: (t) => ({
    name: t.string(),
    note: t.string(),
    usage_limits: t.field({ type: 'JSON' }),
    rate_limits: t.field({ type: 'JSON' }),
    expires_at: t.string(),
    reset_usage: t.boolean(),
  }),
});

builder.queryFields((t) => ({
  providers: t.field({
    type: ProviderPageRef,
    args: { current_page: t.arg.int(), page_size: t.arg.int(), workspace_id: t.arg.string() },
    resolve: (_, a, ctx) => listProviders(ctx.em, ctx.actor, { currentPage: a.current_page, pageSize: a.page_size, workspaceId: a.workspace_id }),
  }),
  providerModels: t.field({
    type: ProviderModelPageRef,
    args: { workspace_id: t.arg.string() },
    resolve: (_, a, ctx) => listProviderModels(ctx.em, ctx.actor, { workspaceId: a.workspace_id }),
  }),
  provider: t.field({
    type: ProviderObjectRef,
    args: { id: t.arg.id({ required: true, description: 'Slug or id' }), workspace_id: t.arg.string() },
    resolve: (_, a, ctx) => getProvider(ctx.em, ctx.actor, String(a.id), a.workspace_id),
  }),
}));

builder.mutationFields((t) => ({
  createProvider: t.field({
    type: ProviderChangeRef,
    errors: { directResult: true },
    args: { input: t.arg({ type: CreateProviderInput, required: true }) },
    resolve: (_, a, ctx) => createProvider(ctx.em, ctx.actor, ctx.meta, plain(a.input)),
  }),
  updateProvider: t.field({
    type: ProviderChangeRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), workspace_id: t.arg.string(), input: t.arg({ type: UpdateProviderInput, required: true }) },
    resolve: (_, a, ctx) => updateProvider(ctx.em, ctx.actor, ctx.meta, String(a.id), a.workspace_id, plain(a.input)),
  }),
  deleteProvider: t.field({
    type: ProviderChangeRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), workspace_id: t.arg.string() },
    resolve: (_, a, ctx) => deleteProvider(ctx.em, ctx.actor, ctx.meta, String(a.id), a.workspace_id),
  }),
}));
