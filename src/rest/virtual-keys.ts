import { ERROR_FIELDS, fieldOrError, json } from './graphql-result.ts';
import { intParam } from './query-params.ts';
import { readJsonBody } from './read-body.ts';
import type { RestContext, RestRoute } from './types.ts';

// Legacy virtual keys (api-catalogue "Virtual-keys (5)"; control-plane-schemas 2.6): create
// answers `{success, data:{slug}}`, update and delete `{}`, and a 401 is the legacy
// `{success:false, data:{message}}` body declared upstream.

const ITEM = 'id workspace_id name provider masked_key note status usage_limits reset_usage created_at slug model_config rate_limits expires_at secret_mappings object';

const LIST = `query VirtualKeys($current_page: Int, $page_size: Int, $workspace_id: String) {
  virtualKeys(current_page: $current_page, page_size: $page_size, workspace_id: $workspace_id) { object total data { ${ITEM} } }
}`;
const GET = `query VirtualKey($id: ID!, $workspace_id: String) { virtualKey(id: $id, workspace_id: $workspace_id) { ${ITEM} } }`;
const CREATE = `mutation CreateVirtualKey($input: CreateVirtualKeyInput!) {
  createVirtualKey(input: $input) { __typename ... on VirtualKeyChange { id slug } ${ERROR_FIELDS} }
}`;
const UPDATE = `mutation UpdateVirtualKey($id: ID!, $workspace_id: String, $input: UpdateVirtualKeyInput!) {
  updateVirtualKey(id: $id, workspace_id: $workspace_id, input: $input) { __typename ... on VirtualKeyChange { id } ${ERROR_FIELDS} }
}`;
const MIGRATE = `mutation MigrateVirtualKey($input: MigrateVirtualKeyInput!) {
  migrateVirtualKey(input: $input) { __typename ... on MigratedVirtualKey { integration_id integration_slug provider_id provider_slug } ${ERROR_FIELDS} }
}`;
const DELETE = `mutation DeleteVirtualKey($id: ID!, $workspace_id: String) {
  deleteVirtualKey(id: $id, workspace_id: $workspace_id) { __typename ... on VirtualKeyChange { id } ${ERROR_FIELDS} }
}`;

const ws = (ctx: RestContext) => ctx.query.get('workspace_id') || undefined;

async function answer(ctx: RestContext, doc: string, field: string, vars: Record<string, unknown>, shape: (v: any) => unknown = (v) => v): Promise<Response> {
  const out = fieldOrError<unknown>(await ctx.run(doc, vars, ctx.request, ctx.ip), field);
  if (out.ok) return json(shape(out.value));
  if (out.response.status === 401) return json({ success: false, data: { message: 'Unauthorised Request' } }, 401);
  return out.response;
}

async function list(ctx: RestContext): Promise<Response> {
  const current_page = intParam(ctx.query, 'current_page');
  if (current_page instanceof Response) return current_page;
  const page_size = intParam(ctx.query, 'page_size');
  if (page_size instanceof Response) return page_size;
  return answer(ctx, LIST, 'virtualKeys', { current_page, page_size, workspace_id: ws(ctx) });
}

async function create(ctx: RestContext): Promise<Response> {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  return answer(ctx, CREATE, 'createVirtualKey', { input: body.value }, (v) => ({ success: true, data: { slug: v.slug } }));
}

async function update(ctx: RestContext): Promise<Response> {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  return answer(ctx, UPDATE, 'updateVirtualKey', { id: ctx.params.slug, workspace_id: ws(ctx), input: body.value }, () => ({}));
}

/** POST /virtual-keys/migrate (draft branch) → the integration and provider it became. */
async function migrate(ctx: RestContext): Promise<Response> {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  return answer(ctx, MIGRATE, 'migrateVirtualKey', { input: body.value }, (v) => ({
    integration_id: v.integration_id,
    integration_slug: v.integration_slug,
    provider_id: v.provider_id,
    provider_slug: v.provider_slug,
  }));
}

const get = (ctx: RestContext) => answer(ctx, GET, 'virtualKey', { id: ctx.params.slug, workspace_id: ws(ctx) });
const remove = (ctx: RestContext) => answer(ctx, DELETE, 'deleteVirtualKey', { id: ctx.params.slug, workspace_id: ws(ctx) }, () => ({}));

export const virtualKeyRoutes: RestRoute[] = ['/v1', '/v2'].flatMap((v) => [
  { method: 'POST', path: `${v}/virtual-keys`, handler: create },
  { method: 'GET', path: `${v}/virtual-keys`, handler: list },
  { method: 'POST', path: `${v}/virtual-keys/migrate`, handler: migrate },
  { method: 'GET', path: `${v}/virtual-keys/:slug`, handler: get },
  { method: 'PUT', path: `${v}/virtual-keys/:slug`, handler: update },
  { method: 'DELETE', path: `${v}/virtual-keys/:slug`, handler: remove },
]);
