import { ERROR_FIELDS, fieldOrError, json } from './graphql-result.ts';
import { intParam } from './query-params.ts';
import { readJsonBody } from './read-body.ts';
import type { RestContext, RestRoute } from './types.ts';

// MCP integrations (api-catalogue "MCP Integrations (5)", "> Workspaces (2)", "> Capabilities (2)",
// "> Metadata (1)", plus the draft `POST …/sync`; control-plane-schemas 2.18).

const ITEM = `id name description owner_id status created_at last_updated_at configurations global_workspace_access
  organisation_id workspace_id slug url auth_type transport type secret_mappings`;
export const CAPABILITY_FIELDS = `name type title description icons enabled created_at last_updated_at input_schema output_schema
  execution annotations arguments uri uri_template mime_type size`;
export const COUNTS = `counts { tools { total enabled } prompts { total enabled } resources { total enabled } resource_templates { total enabled } }`;

const LIST = `query McpIntegrations($organisation_id: String, $workspace_id: String, $type: String, $search: String, $current_page: Int, $page_size: Int) {
  mcpIntegrations(organisation_id: $organisation_id, workspace_id: $workspace_id, type: $type, search: $search, current_page: $current_page, page_size: $page_size) {
    total has_more data { ${ITEM} workspaces_count }
  }
}`;
const GET = `query McpIntegration($id: ID!) { mcpIntegration(id: $id) { ${ITEM} } }`;
const METADATA = `query McpIntegrationMetadata($id: ID!) {
  mcpIntegrationMetadata(id: $id) { server_name server_version protocol_version capability_flags sync_status last_synced_at sync_error }
}`;
const WORKSPACES = `query McpIntegrationWorkspaces($id: ID!) {
  mcpIntegrationWorkspaces(id: $id) { total global_workspace_access data { id enabled status created_at last_updated_at } }
}`;
const CAPABILITIES = `query McpIntegrationCapabilities($id: ID!, $type: String, $page: Int, $page_size: Int) {
  mcpIntegrationCapabilities(id: $id, type: $type, page: $page, page_size: $page_size) { total has_more ${COUNTS} data { ${CAPABILITY_FIELDS} } }
}`;
const CREATE = `mutation CreateMcpIntegration($input: CreateMcpIntegrationInput!) {
  createMcpIntegration(input: $input) { __typename ... on McpCreated { id slug } ${ERROR_FIELDS} }
}`;
const UPDATE = `mutation UpdateMcpIntegration($id: ID!, $input: UpdateMcpIntegrationInput!) {
  updateMcpIntegration(id: $id, input: $input) { __typename ... on McpChanged { id } ${ERROR_FIELDS} }
}`;
const DELETE = `mutation DeleteMcpIntegration($id: ID!) { deleteMcpIntegration(id: $id) { __typename ... on McpChanged { id } ${ERROR_FIELDS} } }`;
const PUT_WORKSPACES = `mutation UpdateMcpIntegrationWorkspaces($id: ID!, $input: UpdateMcpIntegrationWorkspacesInput!) {
  updateMcpIntegrationWorkspaces(id: $id, input: $input) { __typename ... on McpSuccess { success } ${ERROR_FIELDS} }
}`;
const PUT_CAPABILITIES = `mutation UpdateMcpIntegrationCapabilities($id: ID!, $input: UpdateMcpCapabilitiesInput!) {
  updateMcpIntegrationCapabilities(id: $id, input: $input) { __typename ... on McpSuccess { success } ${ERROR_FIELDS} }
}`;
const SYNC = `mutation SyncMcpIntegration($id: ID!, $input: SyncMcpIntegrationInput!) {
  syncMcpIntegration(id: $id, input: $input) { __typename ... on McpSyncResult { success ${COUNTS} } ${ERROR_FIELDS} }
}`;

const str = (q: URLSearchParams, name: string): string | undefined => q.get(name) || undefined;

/** Runs a query and answers its field as is. */
const answer = async (ctx: RestContext, doc: string, vars: Record<string, unknown>, field: string, shape: (v: any) => unknown = (v) => v): Promise<Response> => {
  const out = fieldOrError<unknown>(await ctx.run(doc, vars, ctx.request, ctx.ip), field);
  return out.ok ? json(shape(out.value)) : out.response;
};

/** Runs a mutation with the JSON body as `input`. */
const mutate = async (ctx: RestContext, doc: string, field: string, shape: (v: any) => unknown): Promise<Response> => {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  return answer(ctx, doc, { id: ctx.params.id, input: body.value }, field, shape);
};

const withoutTypename = ({ __typename: _t, ...rest }: Record<string, unknown>) => rest;

/** 0-based `current_page`/`page_size` or 1-based `page`/`page_size`, or the 400 naming the bad one. */
export function pageParams(q: URLSearchParams, names: string[]): Record<string, number | undefined> | Response {
  const out: Record<string, number | undefined> = {};
  for (const n of names) {
    const v = intParam(q, n);
    if (v instanceof Response) return v;
    out[n] = v;
  }
  return out;
}

async function list(ctx: RestContext): Promise<Response> {
  const paging = pageParams(ctx.query, ['current_page', 'page_size']);
  if (paging instanceof Response) return paging;
  const vars = { organisation_id: str(ctx.query, 'organisation_id'), workspace_id: str(ctx.query, 'workspace_id'), type: str(ctx.query, 'type'), search: str(ctx.query, 'search'), ...paging };
  return answer(ctx, LIST, vars, 'mcpIntegrations', (v) => ({ data: v.data, total: v.total, has_more: v.has_more }));
}

/** `version` switches the envelope: `{data, global_workspace_access, total}`, else the legacy `{workspaces, global_workspace_access}`. */
async function workspaces(ctx: RestContext): Promise<Response> {
  const versioned = ctx.query.has('version');
  return answer(ctx, WORKSPACES, { id: ctx.params.id }, 'mcpIntegrationWorkspaces', (v) =>
    versioned ? { data: v.data, global_workspace_access: v.global_workspace_access, total: v.total } : { workspaces: v.data, global_workspace_access: v.global_workspace_access },
  );
}

async function capabilities(ctx: RestContext): Promise<Response> {
  const paging = pageParams(ctx.query, ['page', 'page_size']);
  if (paging instanceof Response) return paging;
  return answer(ctx, CAPABILITIES, { id: ctx.params.id, type: str(ctx.query, 'type'), ...paging }, 'mcpIntegrationCapabilities', (v) => ({ data: v.data, counts: v.counts, total: v.total, has_more: v.has_more }));
}

async function create(ctx: RestContext): Promise<Response> {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  return answer(ctx, CREATE, { input: body.value }, 'createMcpIntegration', (v) => ({ id: v.id, slug: v.slug }));
}

export const mcpIntegrationRoutes: RestRoute[] = ['/v1', '/v2'].flatMap((v) => [
  { method: 'GET', path: `${v}/mcp-integrations`, handler: list },
  { method: 'POST', path: `${v}/mcp-integrations`, handler: create },
  { method: 'GET', path: `${v}/mcp-integrations/:id`, handler: (ctx) => answer(ctx, GET, { id: ctx.params.id }, 'mcpIntegration') },
  { method: 'PUT', path: `${v}/mcp-integrations/:id`, handler: (ctx) => mutate(ctx, UPDATE, 'updateMcpIntegration', () => ({})) },
  { method: 'DELETE', path: `${v}/mcp-integrations/:id`, handler: (ctx) => answer(ctx, DELETE, { id: ctx.params.id }, 'deleteMcpIntegration', () => ({})) },
  { method: 'GET', path: `${v}/mcp-integrations/:id/workspaces`, handler: workspaces },
  { method: 'PUT', path: `${v}/mcp-integrations/:id/workspaces`, handler: (ctx) => mutate(ctx, PUT_WORKSPACES, 'updateMcpIntegrationWorkspaces', withoutTypename) },
  { method: 'GET', path: `${v}/mcp-integrations/:id/capabilities`, handler: capabilities },
  { method: 'PUT', path: `${v}/mcp-integrations/:id/capabilities`, handler: (ctx) => mutate(ctx, PUT_CAPABILITIES, 'updateMcpIntegrationCapabilities', withoutTypename) },
  { method: 'GET', path: `${v}/mcp-integrations/:id/metadata`, handler: (ctx) => answer(ctx, METADATA, { id: ctx.params.id }, 'mcpIntegrationMetadata') },
  { method: 'POST', path: `${v}/mcp-integrations/:id/sync`, handler: (ctx) => mutate(ctx, SYNC, 'syncMcpIntegration', withoutTypename) },
]);
