import { ERROR_FIELDS, fieldOrError, json } from './graphql-result.ts';
import { intParam, listParam } from './query-params.ts';
import { readJsonBody } from './read-body.ts';
import type { RestContext, RestRoute } from './types.ts';

// Integrations with their models and workspaces (api-catalogue "Integrations (5)", "Integrations >
// Models (3)", "Integrations > Workspaces (2)"; control-plane-schemas 2.4; gateway-spec: the list
// at {admin_base_url}/integrations and PUT /v1/integrations/{id}/integration-models).

const ITEM = 'id organisation_id workspace_id ai_provider_id name status created_at last_updated_at slug description object';
const DETAIL = `${ITEM} masked_key configurations global_workspace_access_settings allow_all_models workspace_count secret_mappings pricing_adjustments`;

const LIST = `query Integrations($current_page: Int, $page_size: Int, $workspace_id: String, $type: String) {
  integrations(current_page: $current_page, page_size: $page_size, workspace_id: $workspace_id, type: $type) { object total data { ${ITEM} } }
}`;
const GET = `query Integration($id: ID!) { integration(id: $id) { ${DETAIL} } }`;
const MODELS = `query IntegrationModels($id: ID!) {
  integrationModels(id: $id) { total models { slug name enabled is_custom is_finetune base_model_slug configurations custom_headers pricing_config } }
}`;
const WORKSPACES = `query IntegrationWorkspaces($id: ID!) { integrationWorkspaces(id: $id) { total workspaces { id enabled usage_limits rate_limits } } }`;

const mutation = (name: string, args: string, params: string, result: string, fields: string) => `mutation ${name}(${args}) {
  ${name[0]!.toLowerCase()}${name.slice(1)}(${params}) {
    __typename
    ... on ${result} { ${fields} }
    ${ERROR_FIELDS}
  }
}`;
const CREATE = mutation('CreateIntegration', '$input: CreateIntegrationInput!', 'input: $input', 'IntegrationChange', 'id slug');
const UPDATE = mutation('UpdateIntegration', '$id: ID!, $input: UpdateIntegrationInput!', 'id: $id, input: $input', 'IntegrationChange', 'id');
const DELETE = mutation('DeleteIntegration', '$id: ID!', 'id: $id', 'IntegrationChange', 'id');
const PUT_MODELS = mutation('PutIntegrationModels', '$id: ID!, $input: PutIntegrationModelsInput!', 'id: $id, input: $input', 'IntegrationId', 'id');
const DELETE_MODELS = mutation('DeleteIntegrationModels', '$id: ID!, $slugs: [String!]!', 'id: $id, slugs: $slugs', 'IntegrationId', 'id');
const PUT_WORKSPACES = mutation('PutIntegrationWorkspaces', '$id: ID!, $input: PutIntegrationWorkspacesInput!', 'id: $id, input: $input', 'IntegrationId', 'id');

const fieldName = (doc: string): string => /\{\s*(\w+)\(/.exec(doc)![1]!;

/** Runs `doc` and answers `shape(data)` or the error. */
async function answer(ctx: RestContext, doc: string, vars: Record<string, unknown>, shape: (v: any) => unknown = (v) => v): Promise<Response> {
  const out = fieldOrError<unknown>(await ctx.run(doc, vars, ctx.request, ctx.ip), fieldName(doc));
  return out.ok ? json(shape(out.value)) : out.response;
}

async function withBody(ctx: RestContext, doc: string, vars: Record<string, unknown>, shape: (v: any) => unknown): Promise<Response> {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  return answer(ctx, doc, { ...vars, input: body.value }, shape);
}

const empty = () => ({});

async function list(ctx: RestContext): Promise<Response> {
  const current_page = intParam(ctx.query, 'current_page');
  if (current_page instanceof Response) return current_page;
  const page_size = intParam(ctx.query, 'page_size');
  if (page_size instanceof Response) return page_size;
  return answer(ctx, LIST, { current_page, page_size, workspace_id: ctx.query.get('workspace_id') || undefined, type: ctx.query.get('type') || undefined });
}

/** POST /integrations → `{id, slug}`. */
const create = (ctx: RestContext) => withBody(ctx, CREATE, {}, (v) => ({ id: v.id, slug: v.slug }));
const get = (ctx: RestContext) => answer(ctx, GET, { id: ctx.params.id });
const update = (ctx: RestContext) => withBody(ctx, UPDATE, { id: ctx.params.id }, empty);
const remove = (ctx: RestContext) => answer(ctx, DELETE, { id: ctx.params.id }, empty);
const models = (ctx: RestContext) => answer(ctx, MODELS, { id: ctx.params.id });
const putModels = (ctx: RestContext) => withBody(ctx, PUT_MODELS, { id: ctx.params.id }, empty);
/** DELETE …/models?slugs=a,b → `{}`. */
const deleteModels = (ctx: RestContext) => answer(ctx, DELETE_MODELS, { id: ctx.params.id, slugs: listParam(ctx.query, 'slugs') ?? [] }, empty);
const workspaces = (ctx: RestContext) => answer(ctx, WORKSPACES, { id: ctx.params.id });
const putWorkspaces = (ctx: RestContext) => withBody(ctx, PUT_WORKSPACES, { id: ctx.params.id }, empty);

export const integrationRoutes: RestRoute[] = [
  ...['/v1', '/v2'].flatMap((v) => [
    { method: 'POST', path: `${v}/integrations`, handler: create },
    { method: 'GET', path: `${v}/integrations`, handler: list },
    { method: 'GET', path: `${v}/integrations/:id`, handler: get },
    { method: 'PUT', path: `${v}/integrations/:id`, handler: update },
    { method: 'DELETE', path: `${v}/integrations/:id`, handler: remove },
    { method: 'GET', path: `${v}/integrations/:id/models`, handler: models },
    { method: 'PUT', path: `${v}/integrations/:id/models`, handler: putModels },
    { method: 'DELETE', path: `${v}/integrations/:id/models`, handler: deleteModels },
    { method: 'GET', path: `${v}/integrations/:id/integration-models`, handler: models },
    { method: 'PUT', path: `${v}/integrations/:id/integration-models`, handler: putModels },
    { method: 'GET', path: `${v}/integrations/:id/workspaces`, handler: workspaces },
    { method: 'PUT', path: `${v}/integrations/:id/workspaces`, handler: putWorkspaces },
  ]),
  // The admin list (gateway-spec, Control-plane endpoints: `{admin_base_url}` is `/admin/v2`).
  { method: 'GET', path: '/admin/v2/integrations', handler: list },
  { method: 'GET', path: '/v1/admin/integrations', handler: list },
];
