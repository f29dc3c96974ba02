import { ERROR_FIELDS, fieldOrError, json } from './graphql-result.ts';
import { intParam } from './query-params.ts';
import { readJsonBody } from './read-body.ts';
import type { RestContext, RestRoute } from './types.ts';

// Providers (api-catalogue "Providers (5)"; control-plane-schemas 2.5).

const ITEM = 'id workspace_id name integration_id note status usage_limits reset_usage created_at slug rate_limits expires_at object';

const LIST = `query Providers($current_page: Int, $page_size: Int, $workspace_id: String) {
  providers(current_page: $current_page, page_size: $page_size, workspace_id: $workspace_id) { object total data { ${ITEM} } }
}`;
const GET = `query Provider($id: ID!, $workspace_id: String) { provider(id: $id, workspace_id: $workspace_id) { ${ITEM} } }`;
const MODELS = `query ProviderModels($workspace_id: String) {
  providerModels(workspace_id: $workspace_id) { object total data { id slug provider workspace_id integration_id ai_provider_id is_custom allow_all_models object } }
}`;
const CREATE = `mutation CreateProvider($input: CreateProviderInput!) {
  createProvider(input: $input) { __typename ... on ProviderChange { id slug } ${ERROR_FIELDS} }
}`;
const UPDATE = `mutation UpdateProvider($id: ID!, $workspace_id: String, $input: UpdateProviderInput!) {
  updateProvider(id: $id, workspace_id: $workspace_id, input: $input) { __typename ... on ProviderChange { id slug } ${ERROR_FIELDS} }
}`;
const DELETE = `mutation DeleteProvider($id: ID!, $workspace_id: String) {
  deleteProvider(id: $id, workspace_id: $workspace_id) { __typename ... on ProviderChange { id } ${ERROR_FIELDS} }
}`;

const ws = (ctx: RestContext) => ctx.query.get('workspace_id') || undefined;

async function answer(ctx: RestContext, doc: string, field: string, vars: Record<string, unknown>, shape: (v: any) => unknown = (v) => v): Promise<Response> {
  const out = fieldOrError<unknown>(await ctx.run(doc, vars, ctx.request, ctx.ip), field);
  return out.ok ? json(shape(out.value)) : out.response;
}

async function list(ctx: RestContext): Promise<Response> {
  const current_page = intParam(ctx.query, 'current_page');
  if (current_page instanceof Response) return current_page;
  const page_size = intParam(ctx.query, 'page_size');
  if (page_size instanceof Response) return page_size;
  return answer(ctx, LIST, 'providers', { current_page, page_size, workspace_id: ws(ctx) });
}

/** POST /providers → `{id, slug}`. */
async function create(ctx: RestContext): Promise<Response> {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  return answer(ctx, CREATE, 'createProvider', { input: body.value }, (v) => ({ id: v.id, slug: v.slug }));
}

/** PUT /providers/{slug}?workspace_id= → `{id, slug}`. */
async function update(ctx: RestContext): Promise<Response> {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  return answer(ctx, UPDATE, 'updateProvider', { id: ctx.params.slug, workspace_id: ws(ctx), input: body.value }, (v) => ({ id: v.id, slug: v.slug }));
}

const get = (ctx: RestContext) => answer(ctx, GET, 'provider', { id: ctx.params.slug, workspace_id: ws(ctx) });
/** GET /providers/models (draft branch): `{object, total, data}`. */
const models = (ctx: RestContext) => answer(ctx, MODELS, 'providerModels', { workspace_id: ws(ctx) });
/** DELETE /providers/{slug}?workspace_id= → `{}`. */
const remove = (ctx: RestContext) => answer(ctx, DELETE, 'deleteProvider', { id: ctx.params.slug, workspace_id: ws(ctx) }, () => ({}));

export const providerRoutes: RestRoute[] = ['/v1', '/v2'].flatMap((v) => [
  { method: 'POST', path: `${v}/providers`, handler: create },
  { method: 'GET', path: `${v}/providers`, handler: list },
  { method: 'GET', path: `${v}/providers/models`, handler: models },
  { method: 'GET', path: `${v}/providers/:slug`, handler: get },
  { method: 'PUT', path: `${v}/providers/:slug`, handler: update },
  { method: 'DELETE', path: `${v}/providers/:slug`, handler: remove },
]);
