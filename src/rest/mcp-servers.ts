import { ERROR_FIELDS, fieldOrError, json } from './graphql-result.ts';
import { CAPABILITY_FIELDS, COUNTS, pageParams } from './mcp-integrations.ts';
import { readJsonBody } from './read-body.ts';
import type { RestContext, RestRoute } from './types.ts';

// MCP servers (api-catalogue "MCP Servers (6)", "> Capabilities (2)", "> User Access (2)",
// "> Connections (2)"; control-plane-schemas 2.18), plus the draft routes `GET …/metadata` and
// `POST /mcp-integrations/{id}/test` (api-catalogue Appendix A, "Gateway").

const ITEM = `id slug name status description created_at last_updated_at mcp_integration_id workspace_id
  mcp_integration_details { id slug status configurations url transport auth_type }`;

const LIST = `query McpServers($workspace_id: String, $id: String, $search: String, $current_page: Int, $page_size: Int) {
  mcpServers(workspace_id: $workspace_id, id: $id, search: $search, current_page: $current_page, page_size: $page_size) {
    total data { ${ITEM} organisation_id owner_id mcp_integration_slug mcp_integration_url auth_type workspace_name workspace_slug url }
  }
}`;
const GET = `query McpServer($id: ID!) { mcpServer(id: $id) { ${ITEM} } }`;
const CAPABILITIES = `query McpServerCapabilities($id: ID!, $type: String, $page: Int, $page_size: Int) {
  mcpServerCapabilities(id: $id, type: $type, page: $page, page_size: $page_size) { total has_more ${COUNTS} data { ${CAPABILITY_FIELDS} integration_enabled } }
}`;
const USER_ACCESS = `query McpServerUserAccess($id: ID!, $page: Int, $page_size: Int) {
  mcpServerUserAccess(id: $id, page: $page, page_size: $page_size) {
    default_user_access total has_more data { user_id first_name last_name enabled has_override connection_status }
  }
}`;
const CONNECTIONS = `query McpServerConnections($id: ID!, $user_id: String, $workspace_id: String, $current_page: Int, $page_size: Int) {
  mcpServerConnections(id: $id, user_id: $user_id, workspace_id: $workspace_id, current_page: $current_page, page_size: $page_size) {
    total has_more data { user_id connected created_at last_updated_at }
  }
}`;
const CREATE = `mutation CreateMcpServer($input: CreateMcpServerInput!) {
  createMcpServer(input: $input) { __typename ... on McpCreated { id slug } ${ERROR_FIELDS} }
}`;
const UPDATE = `mutation UpdateMcpServer($id: ID!, $input: UpdateMcpServerInput!) {
  updateMcpServer(id: $id, input: $input) { __typename ... on McpChanged { id } ${ERROR_FIELDS} }
}`;
const DELETE = `mutation DeleteMcpServer($id: ID!) { deleteMcpServer(id: $id) { __typename ... on McpChanged { id } ${ERROR_FIELDS} } }`;
const TEST = `mutation TestMcpServer($id: ID!) {
  testMcpServer(id: $id) { __typename ... on McpServerTestResult { success status_code response_time_ms url server_name error } ${ERROR_FIELDS} }
}`;
const METADATA = `query McpServerMetadata($id: ID!) {
  mcpServerMetadata(id: $id) { server_name server_version protocol_version capability_flags sync_status last_synced_at sync_error }
}`;
const TEST_INTEGRATION = `mutation TestMcpIntegration($id: ID!) {
  testMcpIntegration(id: $id) { __typename ... on McpServerTestResult { success status_code response_time_ms url server_name error } ${ERROR_FIELDS} }
}`;
const PUT_CAPABILITIES = `mutation UpdateMcpServerCapabilities($id: ID!, $input: UpdateMcpCapabilitiesInput!) {
  updateMcpServerCapabilities(id: $id, input: $input) { __typename ... on McpSuccess { success } ${ERROR_FIELDS} }
}`;
const PUT_USER_ACCESS = `mutation UpdateMcpServerUserAccess($id: ID!, $input: UpdateMcpServerUserAccessInput!) {
  updateMcpServerUserAccess(id: $id, input: $input) { __typename ... on McpSuccess { success } ${ERROR_FIELDS} }
}`;
const DELETE_CONNECTION = `mutation DeleteMcpServerConnection($id: ID!, $user_id: String, $workspace_id: String) {
  deleteMcpServerConnection(id: $id, user_id: $user_id, workspace_id: $workspace_id) { __typename ... on McpSuccess { success } ${ERROR_FIELDS} }
}`;

const str = (q: URLSearchParams, name: string): string | undefined => q.get(name) || undefined;
const withoutTypename = ({ __typename: _t, ...rest }: Record<string, unknown>) => rest;

const answer = async (ctx: RestContext, doc: string, vars: Record<string, unknown>, field: string, shape: (v: any) => unknown = (v) => v): Promise<Response> => {
  const out = fieldOrError<unknown>(await ctx.run(doc, vars, ctx.request, ctx.ip), field);
  return out.ok ? json(shape(out.value)) : out.response;
};

const mutate = async (ctx: RestContext, doc: string, field: string, shape: (v: any) => unknown): Promise<Response> => {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  return answer(ctx, doc, { id: ctx.params.id, input: body.value }, field, shape);
};

async function list(ctx: RestContext): Promise<Response> {
  const paging = pageParams(ctx.query, ['current_page', 'page_size']);
  if (paging instanceof Response) return paging;
  const vars = { workspace_id: str(ctx.query, 'workspace_id'), id: str(ctx.query, 'id'), search: ctx.query.get('search') ?? undefined, ...paging };
  return answer(ctx, LIST, vars, 'mcpServers', (v) => ({ data: v.data, total: v.total }));
}

async function create(ctx: RestContext): Promise<Response> {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  return answer(ctx, CREATE, { input: body.value }, 'createMcpServer', (v) => ({ id: v.id, slug: v.slug }));
}

async function capabilities(ctx: RestContext): Promise<Response> {
  const paging = pageParams(ctx.query, ['page', 'page_size']);
  if (paging instanceof Response) return paging;
  return answer(ctx, CAPABILITIES, { id: ctx.params.id, type: str(ctx.query, 'type'), ...paging }, 'mcpServerCapabilities', (v) => ({ data: v.data, counts: v.counts, total: v.total, has_more: v.has_more }));
}

async function userAccess(ctx: RestContext): Promise<Response> {
  const paging = pageParams(ctx.query, ['page', 'page_size']);
  if (paging instanceof Response) return paging;
  return answer(ctx, USER_ACCESS, { id: ctx.params.id, ...paging }, 'mcpServerUserAccess', (v) => ({ data: v.data, default_user_access: v.default_user_access, total: v.total, has_more: v.has_more }));
}

async function connections(ctx: RestContext): Promise<Response> {
  const paging = pageParams(ctx.query, ['current_page', 'page_size']);
  if (paging instanceof Response) return paging;
  const vars = { id: ctx.params.id, user_id: str(ctx.query, 'user_id'), workspace_id: str(ctx.query, 'workspace_id'), ...paging };
  return answer(ctx, CONNECTIONS, vars, 'mcpServerConnections', (v) => ({ data: v.data, total: v.total, has_more: v.has_more }));
}

export const mcpServerRoutes: RestRoute[] = ['/v1', '/v2'].flatMap((v) => [
  { method: 'GET', path: `${v}/mcp-servers`, handler: list },
  { method: 'POST', path: `${v}/mcp-servers`, handler: create },
  { method: 'GET', path: `${v}/mcp-servers/:id`, handler: (ctx) => answer(ctx, GET, { id: ctx.params.id }, 'mcpServer') },
  { method: 'PUT', path: `${v}/mcp-servers/:id`, handler: (ctx) => mutate(ctx, UPDATE, 'updateMcpServer', () => ({})) },
  { method: 'DELETE', path: `${v}/mcp-servers/:id`, handler: (ctx) => answer(ctx, DELETE, { id: ctx.params.id }, 'deleteMcpServer', () => ({})) },
  { method: 'POST', path: `${v}/mcp-servers/:id/test`, handler: (ctx) => answer(ctx, TEST, { id: ctx.params.id }, 'testMcpServer', withoutTypename) },
  { method: 'GET', path: `${v}/mcp-servers/:id/metadata`, handler: (ctx) => answer(ctx, METADATA, { id: ctx.params.id }, 'mcpServerMetadata') },
  { method: 'POST', path: `${v}/mcp-integrations/:id/test`, handler: (ctx) => answer(ctx, TEST_INTEGRATION, { id: ctx.params.id }, 'testMcpIntegration', withoutTypename) },
  { method: 'GET', path: `${v}/mcp-servers/:id/capabilities`, handler: capabilities },
  { method: 'PUT', path: `${v}/mcp-servers/:id/capabilities`, handler: (ctx) => mutate(ctx, PUT_CAPABILITIES, 'updateMcpServerCapabilities', withoutTypename) },
  { method: 'GET', path: `${v}/mcp-servers/:id/user-access`, handler: userAccess },
  { method: 'PUT', path: `${v}/mcp-servers/:id/user-access`, handler: (ctx) => mutate(ctx, PUT_USER_ACCESS, 'updateMcpServerUserAccess', withoutTypename) },
  { method: 'GET', path: `${v}/mcp-servers/:id/connections`, handler: connections },
  {
    method: 'DELETE',
    path: `${v}/mcp-servers/:id/connections`,
    handler: (ctx) => answer(ctx, DELETE_CONNECTION, { id: ctx.params.id, user_id: str(ctx.query, 'user_id'), workspace_id: str(ctx.query, 'workspace_id') }, 'deleteMcpServerConnection', withoutTypename),
  },
]);
