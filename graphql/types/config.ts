import { getConfig, listConfigs, listConfigVersions } from '../../src/services/configs/read-configs.ts';
import type { ConfigDetailView, ConfigVersionView, ConfigView } from '../../src/services/configs/config-view.ts';
import { createConfig, deleteConfig, updateConfig, type CreatedConfig, type DeletedConfig, type UpdatedConfig } from '../../src/services/configs/write-configs.ts';
import { builder } from '../builder.ts';
import { plain } from '../input.ts';
import { pageType } from './page.ts';

// Configs (control-plane-schemas 2.2): saved routing configs with versions. Field names follow REST.

const configItemFields = (t: any) => ({
  id: t.exposeID('id'),
  name: t.exposeString('name'),
  slug: t.exposeString('slug'),
  organisation_id: t.exposeString('organisation_id'),
  workspace_id: t.exposeString('workspace_id'),
  is_default: t.exposeInt('is_default', { description: '1 for the workspace default, else 0' }),
  status: t.exposeString('status'),
  owner_id: t.exposeString('owner_id', { nullable: true }),
  updated_by: t.exposeString('updated_by', { nullable: true }),
  created_at: t.expose('created_at', { type: 'DateTime' }),
  last_updated_at: t.expose('last_updated_at', { type: 'DateTime' }),
  version_id: t.exposeString('version_id', { nullable: true, description: 'The current version' }),
  object: t.exposeString('object'),
});

const ConfigRef = builder.objectRef<ConfigView | ConfigDetailView>('Config').implement({
  description: 'A saved routing config; `config` is the current version body (null in lists).',
  fields: (t) => ({
    ...configItemFields(t),
    config: t.field({ type: 'JSON', nullable: true, resolve: (c) => ('config' in c ? c.config : null) }),
  }),
});

const ConfigVersionRef = builder.objectRef<ConfigVersionView>('ConfigVersion').implement({
  fields: (t) => ({
    ...configItemFields(t),
    version: t.exposeInt('version'),
    config: t.exposeString('config', { description: 'The body as a serialised JSON string' }),
    format: t.exposeString('format'),
  }),
});

const ConfigVersionPageRef = pageType('ConfigVersionPage', ConfigVersionRef);

const CreatedConfigRef = builder.objectRef<CreatedConfig>('CreatedConfig').implement({
  fields: (t) => ({ id: t.exposeID('id'), slug: t.exposeString('slug'), version_id: t.exposeString('version_id') }),
});

const UpdatedConfigRef = builder.objectRef<UpdatedConfig>('UpdatedConfig').implement({
  fields: (t) => ({ id: t.exposeID('id'), version_id: t.exposeString('version_id', { nullable: true }) }),
});

const DeletedConfigRef = builder.objectRef<DeletedConfig>('DeletedConfig').implement({
  fields: (t) => ({ id: t.exposeID('id'), slug: t.exposeString('slug') }),
});

const CreateConfigInput = builder.inputType('CreateConfigInput', {
  fields: (t) => ({
    name: t.string(),
    config: t.field({ type: 'JSON', description: 'Routing config (retry, cache, strategy, targets …)' }),
    isDefault: t.int({ description: '0 or 1' }),
    workspace_id: t.string({ description: 'Id or slug; required for organisation API keys' }),
  }),
});

const UpdateConfigInput = builder.inputType('UpdateConfigInput', {
  fields: (t) => ({
    name: t.string(),
    config: t.field({ type: 'JSON', description: 'A new version' }),
    status: t.string({ description: 'active | inactive' }),
  }),
});

builder.queryFields((t) => ({
  configs: t.field({
    type: [ConfigRef],
    args: { workspace_id: t.arg.string({ description: 'Id or slug' }) },
    resolve: (_, a, ctx) => listConfigs(ctx.em, ctx.actor, { workspaceId: a.workspace_id }),
  }),
  config: t.field({
    type: ConfigRef,
    args: { id: t.arg.id({ required: true, description: 'Id or slug' }) },
    resolve: (_, a, ctx) => getConfig(ctx.em, ctx.actor, String(a.id)),
  }),
  configVersions: t.field({
    type: ConfigVersionPageRef,
    args: { id: t.arg.id({ required: true, description: 'Id or slug' }) },
    resolve: (_, a, ctx) => listConfigVersions(ctx.em, ctx.actor, String(a.id)),
  }),
}));

builder.mutationFields((t) => ({
  createConfig: t.field({
    type: CreatedConfigRef,
    errors: { directResult: true },
    args: { input: t.arg({ type: CreateConfigInput, required: true }) },
    resolve: (_, a, ctx) => createConfig(ctx.em, ctx.actor, ctx.meta, plain(a.input)),
  }),
  updateConfig: t.field({
    type: UpdatedConfigRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateConfigInput, required: true }) },
    resolve: (_, a, ctx) => updateConfig(ctx.em, ctx.actor, ctx.meta, String(a.id), plain(a.input)),
  }),
  deleteConfig: t.field({
    type: DeletedConfigRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => deleteConfig(ctx.em, ctx.actor, ctx.meta, String(a.id)),
  }),
}));
