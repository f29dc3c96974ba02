import { getDeployment, listDeployments, pingDeployment, type DeploymentPing } from '../../src/services/deployments/read-deployments.ts';
import type { DeploymentPage, DeploymentView } from '../../src/services/deployments/deployment-view.ts';
import { createDeployment, deleteDeployment, updateDeployment, type UpdatedDeployment } from '../../src/services/deployments/write-deployments.ts';
import { builder } from '../builder.ts';
import { plain } from '../input.ts';

// Deployments (control-plane-schemas 2.19, draft branch): gateway installations of the
// organisation, with `tags`, `source_type` and the gateway base URLs (gateway-spec).

interface Credentials {
  username: string;
  password: string;
}

const CredentialsRef = builder.objectRef<Credentials>('DeploymentCredentials').implement({
  fields: (t) => ({ username: t.exposeString('username'), password: t.exposeString('password', { description: 'Masked unless include_credentials' }) }),
});

const DeploymentRef = builder.objectRef<DeploymentView>('Deployment').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    object: t.exposeString('object'),
    name: t.exposeString('name'),
    slug: t.exposeString('slug'),
    organisation_id: t.exposeString('organisation_id'),
    type: t.exposeString('type', { description: 'production | non_production' }),
    status: t.exposeString('status'),
    source_type: t.exposeString('source_type', { nullable: true }),
    tags: t.expose('tags', { type: 'JSON', description: 'Key-value pairs' }),
    deployment_config: t.expose('deployment_config', { type: 'JSON' }),
    auth_settings: t.expose('auth_settings', { type: 'JSON' }),
    is_default: t.exposeBoolean('is_default'),
    ch_db: t.exposeString('ch_db', { nullable: true }),
    owner_id: t.exposeString('owner_id', { nullable: true }),
    updated_by: t.exposeString('updated_by', { nullable: true }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    last_updated_at: t.expose('last_updated_at', { type: 'DateTime' }),
    gateway_base_url: t.exposeString('gateway_base_url', { nullable: true, description: 'Its own, else the first GATEWAY_PUBLIC_URLS' }),
    mcp_gateway_base_url: t.exposeString('mcp_gateway_base_url', { nullable: true }),
    credentials: t.field({ type: CredentialsRef, nullable: true, resolve: (d) => d.credentials }),
  }),
});

const DeploymentPageRef = builder.objectRef<DeploymentPage>('DeploymentPage').implement({
  fields: (t) => ({
    object: t.exposeString('object'),
    total: t.exposeInt('total'),
    data: t.field({ type: [DeploymentRef], resolve: (p) => p.data }),
    gateway_base_urls: t.exposeStringList('gateway_base_urls', { description: 'GATEWAY_PUBLIC_URLS, first the default' }),
  }),
});

const DeploymentPingRef = builder.objectRef<DeploymentPing>('DeploymentPing').implement({
  fields: (t) => ({
    success: t.exposeBoolean('success'),
    url: t.exposeString('url', { nullable: true }),
    status_code: t.exposeInt('status_code', { nullable: true }),
    response_time_ms: t.exposeInt('response_time_ms', { nullable: true }),
    gateway_status: t.exposeString('gateway_status', { nullable: true }),
    error: t.exposeString('error', { nullable: true }),
  }),
});

const CreatedDeploymentRef = builder.objectRef<{ id: string; slug: string }>('CreatedDeployment').implement({
  fields: (t) => ({ id: t.exposeID('id'), slug: t.exposeString('slug') }),
});

const UpdatedDeploymentRef = builder.objectRef<UpdatedDeployment>('UpdatedDeployment').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    credentials: t.field({ type: CredentialsRef, nullable: true, description: 'The new credentials, once, after rotate_auth', resolve: (d) => d.credentials }),
  }),
});

const DeletedDeploymentRef = builder.objectRef<{ id: string }>('DeletedDeployment').implement({ fields: (t) => ({ id: t.exposeID('id') }) });

const CredentialsInput = builder.inputType('DeploymentCredentialsInput', {
  fields: (t) => ({ username: t.string({ required: true }), password: t.string({ required: true }) }),
});

const CreateDeploymentInput = builder.inputType('CreateDeploymentInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    organisation_id: t.string(),
    slug: t.string(),
    type: t.string({ description: 'production | non_production' }),
    source_type: t.string(),
    tags: t.field({ type: 'JSON', description: 'Key-value pairs (string values)' }),
    deployment_config: t.field({ type: 'JSON' }),
    auth_settings: t.field({ type: 'JSON', description: 'gateway_base_url, mcp_gateway_base_url, private_link_endpoint, jwt_subs_allowed, workspaces_allowed …' }),
    is_default: t.boolean(),
    credentials: t.field({ type: CredentialsInput }),
  }),
});

const UpdateDeploymentInput = builder.inputType('UpdateDeploymentInput', {
  fields: (t) => ({
    name: t.string(),
    type: t.string(),
    status: t.string({ description: 'active | inactive' }),
    source_type: t.string(),
    tags: t.field({ type: 'JSON' }),
    deployment_config: t.field({ type: 'JSON' }),
    auth_settings: t.field({ type: 'JSON', description: 'as on create, plus allow_all_workspaces, remove_workspaces_allowed, remove_subs_allowed' }),
    is_default: t.boolean(),
    credentials: t.field({ type: CredentialsInput }),
    ch_db: t.string(),
    rotate_auth: t.boolean(),
    override_existing: t.boolean(),
  }),
});

builder.queryFields((t) => ({
  deployments: t.field({
    type: DeploymentPageRef,
    args: {
      organisation_id: t.arg.string(),
      status: t.arg.string(),
      type: t.arg.string(),
      workspace_slug: t.arg.string(),
      search: t.arg.string(),
      current_page: t.arg.int(),
      page_size: t.arg.int(),
    },
    resolve: (_, a, ctx) =>
      listDeployments(ctx.em, ctx.actor, ctx.gatewayUrls, {
        organisationId: a.organisation_id,
        status: a.status,
        type: a.type,
        workspaceSlug: a.workspace_slug,
        search: a.search,
        currentPage: a.current_page,
        pageSize: a.page_size,
      }),
  }),
  deployment: t.field({
    type: DeploymentRef,
    args: { id: t.arg.id({ required: true, description: 'Id or slug' }), include_credentials: t.arg.boolean(), organisation_id: t.arg.string() },
    resolve: (_, a, ctx) => getDeployment(ctx.em, ctx.secretBox, ctx.actor, ctx.gatewayUrls, String(a.id), { includeCredentials: a.include_credentials, organisationId: a.organisation_id }),
  }),
  deploymentPing: t.field({
    type: DeploymentPingRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => pingDeployment(ctx.em, ctx.actor, ctx.gatewayUrls, String(a.id), ctx.trustedHosts),
  }),
}));

builder.mutationFields((t) => ({
  createDeployment: t.field({
    type: CreatedDeploymentRef,
    errors: { directResult: true },
    args: { input: t.arg({ type: CreateDeploymentInput, required: true }) },
    resolve: (_, a, ctx) => createDeployment(ctx.em, ctx.secretBox, ctx.actor, ctx.meta, plain(a.input)),
  }),
  updateDeployment: t.field({
    type: UpdatedDeploymentRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateDeploymentInput, required: true }) },
    resolve: (_, a, ctx) => updateDeployment(ctx.em, ctx.secretBox, ctx.actor, ctx.meta, String(a.id), plain(a.input)),
  }),
  deleteDeployment: t.field({
    type: DeletedDeploymentRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => deleteDeployment(ctx.em, ctx.actor, ctx.meta, String(a.id)),
  }),
}));
