import { getSecretReference, listSecretReferences } from '../../src/services/secret-references/read-secret-references.ts';
import type { SecretReferenceItemView, SecretReferenceView } from '../../src/services/secret-references/secret-reference-view.ts';
import {
  createSecretReference,
  deleteSecretReference,
  updateSecretReference,
  type ChangedSecretReference,
  type CreatedSecretReference,
} from '../../src/services/secret-references/write-secret-references.ts';
import { builder } from '../builder.ts';
import { plain } from '../input.ts';
import { pageType } from './page.ts';

// Secret references (control-plane-schemas 2.17): pointers to secrets in external managers.

const itemFields = (t: any) => ({
  id: t.exposeID('id'),
  name: t.exposeString('name'),
  slug: t.exposeString('slug'),
  manager_type: t.exposeString('manager_type'),
  status: t.exposeString('status'),
  created_at: t.expose('created_at', { type: 'DateTime' }),
  last_updated_at: t.expose('last_updated_at', { type: 'DateTime' }),
  object: t.exposeString('object'),
});

const SecretReferenceItemRef = builder.objectRef<SecretReferenceItemView>('SecretReferenceItem').implement({ fields: (t) => itemFields(t) });

const SecretReferenceRef = builder.objectRef<SecretReferenceView>('SecretReference').implement({
  fields: (t) => ({
    ...itemFields(t),
    organisation_id: t.exposeString('organisation_id'),
    description: t.exposeString('description', { nullable: true }),
    secret_path: t.exposeString('secret_path'),
    secret_key: t.exposeString('secret_key', { nullable: true }),
    allow_all_workspaces: t.exposeBoolean('allow_all_workspaces'),
    allowed_workspaces: t.exposeStringList('allowed_workspaces', { description: 'Workspace ids when allow_all_workspaces is false' }),
    tags: t.field({ type: 'JSON', nullable: true, resolve: (r) => r.tags }),
    created_by: t.exposeString('created_by', { nullable: true }),
    auth_config: t.field({ type: 'JSON', description: 'Credentials masked', resolve: (r) => r.auth_config }),
  }),
});

const SecretReferencePageRef = pageType('SecretReferencePage', SecretReferenceItemRef);

const CreatedSecretReferenceRef = builder.objectRef<CreatedSecretReference>('CreatedSecretReference').implement({
  fields: (t) => ({ id: t.exposeID('id'), slug: t.exposeString('slug'), object: t.exposeString('object') }),
});

const ChangedSecretReferenceRef = builder.objectRef<ChangedSecretReference>('ChangedSecretReference').implement({
  fields: (t) => ({ id: t.exposeID('id') }),
});

const CreateSecretReferenceInput = builder.inputType('CreateSecretReferenceInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    manager_type: t.string({ required: true, description: 'aws_sm | azure_kv | hashicorp_vault | env | file' }),
    auth_config: t.field({ type: 'JSON', required: true }),
    secret_path: t.string({ required: true }),
    secret_key: t.string(),
    slug: t.string(),
    description: t.string(),
    organisation_id: t.string(),
    allow_all_workspaces: t.boolean(),
    allowed_workspaces: t.stringList(),
    tags: t.field({ type: 'JSON' }),
  }),
});

const UpdateSecretReferenceInput = builder.inputType('UpdateSecretReferenceInput', {
  fields: (t) => ({
    name: t.string(),
    slug: t.string(),
    description: t.string(),
    auth_config: t.field({ type: 'JSON', description: 'Merged into the stored auth_config' }),
    secret_path: t.string(),
    secret_key: t.string(),
    allow_all_workspaces: t.boolean(),
    allowed_workspaces: t.stringList(),
    tags: t.field({ type: 'JSON' }),
  }),
});

builder.queryFields((t) => ({
  secretReferences: t.field({
    type: SecretReferencePageRef,
    args: { manager_type: t.arg.string(), tags: t.arg.string({ description: 'JSON-encoded object' }), search: t.arg.string(), current_page: t.arg.int(), page_size: t.arg.int() },
    resolve: (_, a, ctx) =>
      listSecretReferences(ctx.em, ctx.actor, { managerType: a.manager_type, tags: a.tags, search: a.search, currentPage: a.current_page, pageSize: a.page_size }),
  }),
  secretReference: t.field({
    type: SecretReferenceRef,
    args: { id: t.arg.id({ required: true, description: 'Id or slug' }) },
    resolve: (_, a, ctx) => getSecretReference(ctx.em, ctx.actor, ctx.secretBox, String(a.id)),
  }),
}));

builder.mutationFields((t) => ({
  createSecretReference: t.field({
    type: CreatedSecretReferenceRef,
    errors: { directResult: true },
    args: { input: t.arg({ type: CreateSecretReferenceInput, required: true }) },
    resolve: (_, a, ctx) => createSecretReference(ctx.em, ctx.actor, ctx.meta, ctx.secretBox, plain(a.input)),
  }),
  updateSecretReference: t.field({
    type: ChangedSecretReferenceRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateSecretReferenceInput, required: true }) },
    resolve: (_, a, ctx) => updateSecretReference(ctx.em, ctx.actor, ctx.meta, ctx.secretBox, String(a.id), plain(a.input)),
  }),
  deleteSecretReference: t.field({
    type: ChangedSecretReferenceRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => deleteSecretReference(ctx.em, ctx.actor, ctx.meta, String(a.id)),
  }),
}));
