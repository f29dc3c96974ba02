import { ERROR_FIELDS, fieldOrError, json, stripTypename } from './graphql-result.ts';
import { intParam } from './query-params.ts';
import { readJsonBody } from './read-body.ts';
import type { RestContext, RestRoute } from './types.ts';

// /v1/admin/users and /v1/admin/users/invites (api-catalogue: Users, User-invites). Lists take
// camelCase paging (`currentPage`, `pageSize`), snake_case accepted as aliases.

const USER_FIELDS = 'object id first_name last_name role email created_at last_updated_at workspace_ids';
const INVITE_FIELDS = 'object id email role created_at expires_at accepted_at status invited_by workspaces { workspace_id role }';

const LIST_USERS = `query Users($currentPage: Int, $pageSize: Int, $role: String, $email: String) {
  users(currentPage: $currentPage, pageSize: $pageSize, role: $role, email: $email) { object total data { ${USER_FIELDS} } }
}`;
const GET_USER = `query User($id: ID!) { user(id: $id) { ${USER_FIELDS} } }`;
const UPDATE_USER = `mutation UpdateUser($id: ID!, $input: UpdateUserInput!) {
  updateUser(id: $id, input: $input) { __typename ... on User { id } ${ERROR_FIELDS} }
}`;
const DELETE_USER = `mutation DeleteUser($id: ID!) {
  deleteUser(id: $id) { __typename ... on DeletedUser { id } ${ERROR_FIELDS} }
}`;

const LIST_INVITES = `query Invites($currentPage: Int, $pageSize: Int, $role: String, $email: String, $status: String) {
  invites(currentPage: $currentPage, pageSize: $pageSize, role: $role, email: $email, status: $status) { object total data { ${INVITE_FIELDS} } }
}`;
const GET_INVITE = `query Invite($id: ID!) { invite(id: $id) { ${INVITE_FIELDS} } }`;
const CREATE_INVITE = `mutation CreateInvite($input: CreateInviteInput!) {
  createInvite(input: $input) { __typename ... on CreatedInvite { id invite_link } ${ERROR_FIELDS} }
}`;
const DELETE_INVITE = `mutation DeleteInvite($id: ID!) {
  deleteInvite(id: $id) { __typename ... on RevokedInvite { id } ${ERROR_FIELDS} }
}`;
const RESEND_INVITE = `mutation ResendInvite($id: ID!) {
  resendInvite(id: $id) { __typename ... on ResentInvite { inviteLink } ${ERROR_FIELDS} }
}`;

/** `currentPage`/`pageSize`, or their snake_case aliases; a Response is the 400 naming the bad one. */
function paging(q: URLSearchParams): { currentPage?: number; pageSize?: number } | Response {
  const out: { currentPage?: number; pageSize?: number } = {};
  for (const [camel, snake] of [['currentPage', 'current_page'], ['pageSize', 'page_size']] as const) {
    const name = q.has(camel) ? camel : snake;
    const v = intParam(q, name);
    if (v instanceof Response) return v;
    if (v !== undefined) out[camel] = v;
  }
  return out;
}

const text = (q: URLSearchParams, name: string): string | undefined => q.get(name) || undefined;

async function query(ctx: RestContext, doc: string, vars: Record<string, unknown>, field: string): Promise<Response> {
  const out = fieldOrError<unknown>(await ctx.run(doc, vars, ctx.request, ctx.ip), field);
  return out.ok ? json(out.value) : out.response;
}

/** Mutations whose REST answer is the catalogue's untyped `{}`. */
async function emptyAnswer(ctx: RestContext, doc: string, vars: Record<string, unknown>, field: string): Promise<Response> {
  const out = fieldOrError<unknown>(await ctx.run(doc, vars, ctx.request, ctx.ip), field);
  return out.ok ? json({}) : out.response;
}

async function listUsers(ctx: RestContext): Promise<Response> {
  const p = paging(ctx.query);
  if (p instanceof Response) return p;
  return query(ctx, LIST_USERS, { ...p, role: text(ctx.query, 'role'), email: text(ctx.query, 'email') }, 'users');
}

async function updateUser(ctx: RestContext): Promise<Response> {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  return emptyAnswer(ctx, UPDATE_USER, { id: ctx.params.userId, input: body.value }, 'updateUser');
}

async function listInvites(ctx: RestContext): Promise<Response> {
  const p = paging(ctx.query);
  if (p instanceof Response) return p;
  const vars = { ...p, role: text(ctx.query, 'role'), email: text(ctx.query, 'email'), status: text(ctx.query, 'status') };
  return query(ctx, LIST_INVITES, vars, 'invites');
}

async function createInvite(ctx: RestContext): Promise<Response> {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  const out = fieldOrError<{ id: string; invite_link: string }>(await ctx.run(CREATE_INVITE, { input: body.value }, ctx.request, ctx.ip), 'createInvite');
  return out.ok ? json({ id: out.value.id, invite_link: out.value.invite_link }) : out.response;
}

async function resendInvite(ctx: RestContext): Promise<Response> {
  const out = fieldOrError<{ inviteLink: string }>(await ctx.run(RESEND_INVITE, { id: ctx.params.inviteId }, ctx.request, ctx.ip), 'resendInvite');
  return out.ok ? json({ inviteLink: out.value.inviteLink }) : out.response;
}

export const userRoutes: RestRoute[] = [
  { method: 'GET', path: '/v1/admin/users', handler: listUsers },
  { method: 'GET', path: '/v1/admin/users/:userId', handler: (ctx) => query(ctx, GET_USER, { id: ctx.params.userId }, 'user') },
  { method: 'PUT', path: '/v1/admin/users/:userId', handler: updateUser },
  { method: 'DELETE', path: '/v1/admin/users/:userId', handler: (ctx) => emptyAnswer(ctx, DELETE_USER, { id: ctx.params.userId }, 'deleteUser') },
  { method: 'GET', path: '/v1/admin/users/invites', handler: listInvites },
  { method: 'POST', path: '/v1/admin/users/invites', handler: createInvite },
  { method: 'GET', path: '/v1/admin/users/invites/:inviteId', handler: (ctx) => query(ctx, GET_INVITE, { id: ctx.params.inviteId }, 'invite') },
  { method: 'DELETE', path: '/v1/admin/users/invites/:inviteId', handler: (ctx) => emptyAnswer(ctx, DELETE_INVITE, { id: ctx.params.inviteId }, 'deleteInvite') },
  { method: 'POST', path: '/v1/admin/users/invites/:inviteId/resend', handler: resendInvite },
];

const ACCEPT = `mutation AcceptInvite($input: AcceptInviteInput!) {
  acceptInvite(input: $input) {
    __typename
    ... on AcceptedInvite { user_id organisation_id workspaces { workspace_id role } api_keys { id workspace_id key } }
    ${ERROR_FIELDS}
  }
}`;

/** `POST /v1/invites/accept`: public (the token is the credential), body or the link's `?token=`. */
async function accept(ctx: RestContext): Promise<Response> {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  const token = body.value.token ?? ctx.query.get('token') ?? undefined;
  const out = fieldOrError<Record<string, unknown>>(await ctx.run(ACCEPT, { input: { ...body.value, token } }, ctx.request, ctx.ip), 'acceptInvite');
  return out.ok ? json(stripTypename(out.value)) : out.response;
}

export const inviteAcceptRoutes: RestRoute[] = [{ method: 'POST', path: '/v1/invites/accept', handler: accept }];
