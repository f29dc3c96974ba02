import { ERROR_FIELDS, fieldOrError, json } from './graphql-result.ts';
import { intParam } from './query-params.ts';
import { readJsonBody } from './read-body.ts';
import type { RestContext, RestRoute } from './types.ts';

// Deployments (api-catalogue "Deployments — draft branch (6)"; control-plane-schemas 2.19).

const ITEM = `id object name slug organisation_id type status source_type tags deployment_config auth_settings is_default ch_db
  owner_id updated_by created_at last_updated_at gateway_base_url mcp_gateway_base_url credentials { username password }`;

const LIST = `query Deployments($organisation_id: String, $status: String, $type: String, $workspace_slug: String, $search: String, $current_page: Int, $page_size: Int) {
  deployments(organisation_id: $organisation_id, status: $status, type: $type, workspace_slug: $workspace_slug, search: $search, current_page: $current_page, page_size: $page_size) {
    object total gateway_base_urls data { ${ITEM} }
  }
}`;
const GET = `query Deployment($id: ID!, $include_credentials: Boolean, $organisation_id: String) {
  deployment(id: $id, include_credentials: $include_credentials, organisation_id: $organisation_id) { ${ITEM} }
}`;
const PING = `query DeploymentPing($id: ID!) { deploymentPing(id: $id) { success url status_code response_time_ms gateway_status error } }`;
const CREATE = `mutation CreateDeployment($input: CreateDeploymentInput!) {
  createDeployment(input: $input) { __typename ... on CreatedDeployment { id slug } ${ERROR_FIELDS} }
}`;
const UPDATE = `mutation UpdateDeployment($id: ID!, $input: UpdateDeploymentInput!) {
  updateDeployment(id: $id, input: $input) { __typename ... on UpdatedDeployment { id credentials { username password } } ${ERROR_FIELDS} }
}`;
const DELETE = `mutation DeleteDeployment($id: ID!) { deleteDeployment(id: $id) { __typename ... on DeletedDeployment { id } ${ERROR_FIELDS} } }`;

const str = (q: URLSearchParams, name: string): string | undefined => q.get(name) || undefined;

async function list(ctx: RestContext): Promise<Response> {
  const currentPage = intParam(ctx.query, 'current_page');
  if (currentPage instanceof Response) return currentPage;
  const pageSize = intParam(ctx.query, 'page_size');
  if (pageSize instanceof Response) return pageSize;
  const vars = {
    organisation_id: str(ctx.query, 'organisation_id'),
    status: str(ctx.query, 'status'),
    type: str(ctx.query, 'type'),
    workspace_slug: str(ctx.query, 'workspace_slug'),
    search: str(ctx.query, 'search'),
    current_page: currentPage,
    page_size: pageSize,
  };
  const out = fieldOrError<unknown>(await ctx.run(LIST, vars, ctx.request, ctx.ip), 'deployments');
  return out.ok ? json(out.value) : out.response;
}

async function create(ctx: RestContext): Promise<Response> {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  const out = fieldOrError<{ id: string; slug: string }>(await ctx.run(CREATE, { input: body.value }, ctx.request, ctx.ip), 'createDeployment');
  return out.ok ? json({ id: out.value.id, slug: out.value.slug }) : out.response;
}

async function get(ctx: RestContext): Promise<Response> {
  const vars = { id: ctx.params.id, include_credentials: ctx.query.get('include_credentials') === 'true', organisation_id: str(ctx.query, 'organisation_id') };
  const out = fieldOrError<unknown>(await ctx.run(GET, vars, ctx.request, ctx.ip), 'deployment');
  return out.ok ? json(out.value) : out.response;
}

/** → `{}`, or `{credentials}` once after `rotate_auth`. */
async function update(ctx: RestContext): Promise<Response> {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  const out = fieldOrError<{ credentials: unknown }>(await ctx.run(UPDATE, { id: ctx.params.id, input: body.value }, ctx.request, ctx.ip), 'updateDeployment');
  return out.ok ? json(out.value.credentials ? { credentials: out.value.credentials } : {}) : out.response;
}

async function remove(ctx: RestContext): Promise<Response> {
  const out = fieldOrError<unknown>(await ctx.run(DELETE, { id: ctx.params.id }, ctx.request, ctx.ip), 'deleteDeployment');
  return out.ok ? json({}) : out.response;
}

async function ping(ctx: RestContext): Promise<Response> {
  const out = fieldOrError<unknown>(await ctx.run(PING, { id: ctx.params.id }, ctx.request, ctx.ip), 'deploymentPing');
  return out.ok ? json(out.value) : out.response;
}

export const deploymentRoutes: RestRoute[] = ['/v1', '/v2'].flatMap((v) => [
  { method: 'GET', path: `${v}/deployments`, handler: list },
  { method: 'POST', path: `${v}/deployments`, handler: create },
  { method: 'GET', path: `${v}/deployments/:id`, handler: get },
  { method: 'PUT', path: `${v}/deployments/:id`, handler: update },
  { method: 'DELETE', path: `${v}/deployments/:id`, handler: remove },
  { method: 'GET', path: `${v}/deployments/:id/ping`, handler: ping },
]);
