import type { VirtualKeyView } from '../../src/services/providers/virtual-key-view.ts';
import { migrateVirtualKey, type MigratedVirtualKey } from '../../src/services/providers/migrate-virtual-key.ts';
import { createVirtualKey, deleteVirtualKey, getVirtualKey, listVirtualKeys, updateVirtualKey } from '../../src/services/providers/virtual-keys.ts';
import { builder } from '../builder.ts';
import { plain } from '../input.ts';
import { pageType } from './page.ts';

// Legacy virtual keys (control-plane-schemas 2.6). The key is sealed at rest; answers show only `masked_key`.

const VirtualKeyRef = builder.objectRef<VirtualKeyView>('VirtualKey').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    workspace_id: t.exposeString('workspace_id'),
    name: t.exposeString('name'),
    provider: t.exposeString('provider'),
    masked_key: t.exposeString('masked_key', { nullable: true }),
    note: t.exposeString('note', { nullable: true }),
    status: t.exposeString('status'),
    usage_limits: t.field({ type: 'JSON', nullable: true, resolve: (v) => v.usage_limits }),
    reset_usage: t.exposeFloat('reset_usage', { nullable: true }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    slug: t.exposeString('slug'),
    model_config: t.field({ type: 'JSON', resolve: (v) => v.model_config }),
    rate_limits: t.field({ type: 'JSON', nullable: true, resolve: (v) => v.rate_limits }),
    expires_at: t.expose('expires_at', { type: 'DateTime', nullable: true }),
    secret_mappings: t.field({ type: 'JSON', nullable: true, resolve: (v) => v.secret_mappings }),
    object: t.exposeString('object'),
  }),
});

const VirtualKeyPageRef = pageType('VirtualKeyPage', VirtualKeyRef);

const VirtualKeyChangeRef = builder.objectRef<{ id: string; slug: string }>('VirtualKeyChange').implement({
  fields: (t) => ({ id: t.exposeID('id'), slug: t.exposeString('slug') }),
});

const MigratedVirtualKeyRef = builder.objectRef<MigratedVirtualKey>('MigratedVirtualKey').implement({
  fields: (t) => ({
    integration_id: t.exposeID('integration_id'),
    integration_slug: t.exposeString('integration_slug'),
    provider_id: t.exposeID('provider_id'),
    provider_slug: t.exposeString('provider_slug'),
  }),
});

const MigrateVirtualKeyInput = builder.inputType('MigrateVirtualKeyInput', {
  fields: (t) => ({
    slug: t.string({ required: true, description: "The virtual key's slug" }),
    workspace_id: t.string(),
    integration_slug: t.string({ description: "Default: the virtual key's slug" }),
  }),
});

const CreateVirtualKeyInput = builder.inputType('CreateVirtualKeyInput', {
  fields: (t) => ({
    name: t.string(),
    provider: t.string({ required: true, description: 'e.g. openai, azure-openai, anthropic' }),
    key: t.string(),
    note: t.string(),
    apiVersion: t.string(),
    resourceName: t.string(),
    deploymentName: t.string(),
    workspace_id: t.string(),
    deploymentConfig: t.field({ type: 'JSON' }),
    usage_limits: t.field({ type: 'JSON' }),
    rate_limits: t.field({ type: 'JSON' }),
    expires_at: t.string(),
    secret_mappings: t.field({ type: 'JSON' }),
  }),
});

const UpdateVirtualKeyInput = builder.inputType('UpdateVirtualKeyInput', {
  fields: (t) => ({
    name: t.string(),
    key: t.string(),
    note: t.string(),
    deploymentConfig: t.field({ type: 'JSON' }),
    usage_limits: t.field({ type: 'JSON' }),
    rate_limits: t.field({ type: 'JSON' }),
    expires_at: t.string(),
    secret_mappings: t.field({ type: 'JSON' }),
  }),
});

builder.queryFields((t) => ({
  virtualKeys: t.field({
    type: VirtualKeyPageRef,
    args: { current_page: t.arg.int(), page_size: t.arg.int(), workspace_id: t.arg.string() },
    resolve: (_, a, ctx) => listVirtualKeys(ctx.em, ctx.actor, { currentPage: a.current_page, pageSize: a.page_size, workspaceId: a.workspace_id }),
  }),
  virtualKey: t.field({
    type: VirtualKeyRef,
    args: { id: t.arg.id({ required: true, description: 'Slug or id' }), workspace_id: t.arg.string() },
    resolve: (_, a, ctx) => getVirtualKey(ctx.em, ctx.actor, String(a.id), a.workspace_id),
  }),
}));

builder.mutationFields((t) => ({
  createVirtualKey: t.field({
    type: VirtualKeyChangeRef,
    errors: { directResult: true },
    args: { input: t.arg({ type: CreateVirtualKeyInput, required: true }) },
    resolve: (_, a, ctx) => createVirtualKey(ctx.em, ctx.secretBox, ctx.actor, ctx.meta, plain(a.input)),
  }),
  updateVirtualKey: t.field({
    type: VirtualKeyChangeRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), workspace_id: t.arg.string(), input: t.arg({ type: UpdateVirtualKeyInput, required: true }) },
    resolve: (_, a, ctx) => updateVirtualKey(ctx.em, ctx.secretBox, ctx.actor, ctx.meta, String(a.id), a.workspace_id, plain(a.input)),
  }),
  migrateVirtualKey: t.field({
    type: MigratedVirtualKeyRef,
    errors: { directResult: true },
    args: { input: t.arg({ type: MigrateVirtualKeyInput, required: true }) },
    resolve: (_, a, ctx) => migrateVirtualKey(ctx.em, ctx.secretBox, ctx.actor, ctx.meta, plain(a.input)),
  }),
  deleteVirtualKey: t.field({
    type: VirtualKeyChangeRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), workspace_id: t.arg.string() },
    resolve: (_, a, ctx) => deleteVirtualKey(ctx.em, ctx.actor, ctx.meta, String(a.id), a.workspace_id),
  }),
}));
