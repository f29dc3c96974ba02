import { intParam, listParam } from './query-params.ts';
import { ERROR_FIELDS, fieldOrError, json, stripTypename } from './graphql-result.ts';
import { readJsonBody } from './read-body.ts';
import type { RestContext, RestRoute } from './types.ts';

// Workspaces, workspace members and organisation settings (api-catalogue: Workspaces, Workspaces >
// Members; the draft /v2 paths; gateway-spec `GET, PUT /v2/workspaces/{id}`). Each route runs one
// GraphQL operation; every rule lives behind it.

const DEFAULTS_FIELDS = 'metadata is_default input_guardrails output_guardrails user_api_key_config object';
const SETTINGS_FIELDS = `user_api_key_rotation_period max_user_api_keys_per_user default_api_key_expiry_days
  max_api_key_expiry_days user_api_key_auto_create user_api_key_auto_create_scopes`;
/** `status` is aliased next to GatewayError's (an Int) in mutation unions; the adapter renames it back. */
const workspaceFields = (status = 'status') => `id slug name description created_at last_updated_at defaults { ${DEFAULTS_FIELDS} }
  settings { ${SETTINGS_FIELDS} } usage_limits rate_limits ${status} object`;
const WORKSPACE_FIELDS = workspaceFields();
const MEMBER_FIELDS = 'object id first_name last_name org_role role created_at last_updated_at status workspace_id email scopes settings';
const ORG_SETTINGS_FIELDS = `${SETTINGS_FIELDS} default_workspace_user_api_key_auto_create block_inline_config`;

const LIST = `query Workspaces($current_page: Int, $page_size: Int, $name: String, $exact_name: String, $status: [String!]) {
  workspaces(current_page: $current_page, page_size: $page_size, name: $name, exact_name: $exact_name, status: $status) {
    object total data { ${WORKSPACE_FIELDS} }
  }
}`;
const GET = `query Workspace($id: ID!, $name_format: String) {
  workspace(id: $id, name_format: $name_format) { ${WORKSPACE_FIELDS} users { ${MEMBER_FIELDS} } }
}`;
const CREATE = `mutation CreateWorkspace($input: CreateWorkspaceInput!) {
  createWorkspace(input: $input) { __typename ... on Workspace { ${workspaceFields('workspace_status: status')} } ${ERROR_FIELDS} }
}`;
const UPDATE = `mutation UpdateWorkspace($id: ID!, $input: UpdateWorkspaceInput!) {
  updateWorkspace(id: $id, input: $input) { __typename ... on Workspace { id } ${ERROR_FIELDS} }
}`;
const DELETE = `mutation DeleteWorkspace($id: ID!) {
  deleteWorkspace(id: $id) { __typename ... on WorkspaceDeleted { id } ${ERROR_FIELDS} }
}`;

const MEMBERS = `query WorkspaceMembers($workspace_id: ID!, $current_page: Int, $page_size: Int, $role: String, $email: String) {
  workspaceMembers(workspace_id: $workspace_id, current_page: $current_page, page_size: $page_size, role: $role, email: $email) {
    object total data { ${MEMBER_FIELDS} }
  }
}`;
const MEMBER = `query WorkspaceMember($workspace_id: ID!, $user_id: ID!) {
  workspaceMember(workspace_id: $workspace_id, user_id: $user_id) { ${MEMBER_FIELDS} }
}`;
const ADD_MEMBERS = `mutation AddWorkspaceMembers($workspace_id: ID!, $input: AddWorkspaceMembersInput!) {
  addWorkspaceMembers(workspace_id: $workspace_id, input: $input) { __typename ... on WorkspaceMembersAdded { workspace_id } ${ERROR_FIELDS} }
}`;
const UPDATE_MEMBER = `mutation UpdateWorkspaceMember($workspace_id: ID!, $user_id: ID!, $input: UpdateWorkspaceMemberInput!) {
  updateWorkspaceMember(workspace_id: $workspace_id, user_id: $user_id, input: $input) { __typename ... on WorkspaceMember { id } ${ERROR_FIELDS} }
}`;
const REMOVE_MEMBER = `mutation RemoveWorkspaceMember($workspace_id: ID!, $user_id: ID!) {
  removeWorkspaceMember(workspace_id: $workspace_id, user_id: $user_id) { __typename ... on WorkspaceMemberRemoved { user_id } ${ERROR_FIELDS} }
}`;

const ORG_SETTINGS = `query OrganisationSettings { organisationSettings { ${ORG_SETTINGS_FIELDS} } }`;
const UPDATE_ORG_SETTINGS = `mutation UpdateOrganisationSettings($input: JSON!) {
  updateOrganisationSettings(input: $input) { __typename ... on OrganisationSettings { ${ORG_SETTINGS_FIELDS} } ${ERROR_FIELDS} }
}`;

type Vars = Record<string, unknown>;

async function query(ctx: RestContext, doc: string, vars: Vars, field: string): Promise<Response> {
  const out = fieldOrError<unknown>(await ctx.run(doc, vars, ctx.request, ctx.ip), field);
  return out.ok ? json(out.value) : out.response;
}

/** A mutation whose REST answer is the object itself (`full`, mapped by `shape`) or the catalogue's empty `{}`. */
async function mutate(
  ctx: RestContext, doc: string, vars: Vars, field: string, answer: 'full' | 'empty', shape: (v: Record<string, unknown>) => unknown = (v) => v,
): Promise<Response> {
  const out = fieldOrError<Record<string, unknown>>(await ctx.run(doc, vars, ctx.request, ctx.ip), field);
  if (!out.ok) return out.response;
  return json(answer === 'full' ? shape(stripTypename(out.value)) : {});
}

/** Puts the aliased `workspace_status` back as `status`, in the REST field order. */
function unaliasStatus(v: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k === 'workspace_status' ? 'status' : k, x]));
}

async function withBody(ctx: RestContext, fn: (body: Record<string, unknown>) => Promise<Response>): Promise<Response> {
  const body = await readJsonBody(ctx.request);
  return body.ok ? fn(body.value) : body.response;
}

function paging(ctx: RestContext): { current_page?: number; page_size?: number } | Response {
  const current_page = intParam(ctx.query, 'current_page');
  if (current_page instanceof Response) return current_page;
  const page_size = intParam(ctx.query, 'page_size');
  if (page_size instanceof Response) return page_size;
  return { current_page, page_size };
}

const optional = (q: URLSearchParams, name: string): string | undefined => q.get(name) ?? undefined;

async function list(ctx: RestContext): Promise<Response> {
  const p = paging(ctx);
  if (p instanceof Response) return p;
  const vars = { ...p, name: optional(ctx.query, 'name'), exact_name: optional(ctx.query, 'exact_name'), status: listParam(ctx.query, 'status') };
  return query(ctx, LIST, vars, 'workspaces');
}

const get = (ctx: RestContext) => query(ctx, GET, { id: ctx.params.id, name_format: optional(ctx.query, 'name_format') }, 'workspace');
const create = (ctx: RestContext) => withBody(ctx, (input) => mutate(ctx, CREATE, { input }, 'createWorkspace', 'full', unaliasStatus));
const update = (ctx: RestContext) => withBody(ctx, (input) => mutate(ctx, UPDATE, { id: ctx.params.id, input }, 'updateWorkspace', 'empty'));
const remove = (ctx: RestContext) => mutate(ctx, DELETE, { id: ctx.params.id }, 'deleteWorkspace', 'empty');

async function members(ctx: RestContext): Promise<Response> {
  const p = paging(ctx);
  if (p instanceof Response) return p;
  const vars = { workspace_id: ctx.params.id, ...p, role: optional(ctx.query, 'role'), email: optional(ctx.query, 'email') };
  return query(ctx, MEMBERS, vars, 'workspaceMembers');
}

const member = (ctx: RestContext) => query(ctx, MEMBER, { workspace_id: ctx.params.id, user_id: ctx.params.userId }, 'workspaceMember');
const addMembers = (ctx: RestContext) =>
  withBody(ctx, (input) => mutate(ctx, ADD_MEMBERS, { workspace_id: ctx.params.id, input }, 'addWorkspaceMembers', 'empty'));
const updateMember = (ctx: RestContext) =>
  withBody(ctx, (input) => mutate(ctx, UPDATE_MEMBER, { workspace_id: ctx.params.id, user_id: ctx.params.userId, input }, 'updateWorkspaceMember', 'empty'));
const removeMember = (ctx: RestContext) =>
  mutate(ctx, REMOVE_MEMBER, { workspace_id: ctx.params.id, user_id: ctx.params.userId }, 'removeWorkspaceMember', 'empty');

const orgSettings = (ctx: RestContext) => query(ctx, ORG_SETTINGS, {}, 'organisationSettings');
const updateOrgSettings = (ctx: RestContext) => withBody(ctx, (input) => mutate(ctx, UPDATE_ORG_SETTINGS, { input }, 'updateOrganisationSettings', 'full'));

export const workspaceRoutes: RestRoute[] = [
  // Published /v1/admin paths and the draft non-admin /v2 paths: the same operations.
  ...['/v1/admin/workspaces', '/v2/workspaces'].flatMap((base): RestRoute[] => [
    { method: 'GET', path: base, handler: list },
    { method: 'POST', path: base, handler: create },
    { method: 'GET', path: `${base}/:id`, handler: get },
    { method: 'PUT', path: `${base}/:id`, handler: update },
    { method: 'GET', path: `${base}/:id/users`, handler: members },
    { method: 'POST', path: `${base}/:id/users`, handler: addMembers },
    { method: 'GET', path: `${base}/:id/users/:userId`, handler: member },
    { method: 'PUT', path: `${base}/:id/users/:userId`, handler: updateMember },
    { method: 'DELETE', path: `${base}/:id/users/:userId`, handler: removeMember },
  ]),
  { method: 'DELETE', path: '/v1/admin/workspaces/:id', handler: remove },
  { method: 'GET', path: '/v1/admin/organisation/settings', handler: orgSettings },
  { method: 'PUT', path: '/v1/admin/organisation/settings', handler: updateOrgSettings },
];
