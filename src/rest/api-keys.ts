import { intParam, listParam } from './query-params.ts';
import { ERROR_FIELDS, fieldOrError, json, stripTypename } from './graphql-result.ts';
import { readJsonBody } from './read-body.ts';
import type { RestContext, RestRoute } from './types.ts';

const API_KEY_FIELDS = `id key name description type organisation_id workspace_id user_id status created_at
  last_updated_at creation_mode rate_limits { type unit value } usage_limits reset_usage last_reset_at
  current_usage { type used limit fraction reset_at next_reset_at cost_tracking } scopes defaults alert_emails
  expires_at rotation_policy last_rotated_at rotation_pending pending_key_created_at object`;

const CREATE = `mutation CreateApiKey($type: String, $sub_type: String!, $input: CreateApiKeyInput!) {
  createApiKey(type: $type, sub_type: $sub_type, input: $input) {
    __typename
    ... on CreatedApiKey { id key object }
    ${ERROR_FIELDS}
  }
}`;

const LIST = `query ApiKeys($current_page: Int, $page_size: Int, $workspace_id: String, $ids: [String!]) {
  apiKeys(current_page: $current_page, page_size: $page_size, workspace_id: $workspace_id, ids: $ids) {
    object total data { ${API_KEY_FIELDS} }
  }
}`;

const GET = `query ApiKey($id: ID!) { apiKey(id: $id) { ${API_KEY_FIELDS} } }`;

const UPDATE = `mutation UpdateApiKey($id: ID!, $input: UpdateApiKeyInput!) {
  updateApiKey(id: $id, input: $input) {
    __typename
    ... on ApiKey { id }
    ${ERROR_FIELDS}
  }
}`;

const DELETE = `mutation DeleteApiKey($id: ID!) {
  deleteApiKey(id: $id) {
    __typename
    ... on DeletedApiKey { id }
    ${ERROR_FIELDS}
  }
}`;

const ROTATE = `mutation RotateApiKey($id: ID!, $input: RotateApiKeyInput) {
  rotateApiKey(id: $id, input: $input) {
    __typename
    ... on RotatedApiKey { id key key_transition_expires_at }
    ${ERROR_FIELDS}
  }
}`;

const CLAIM = `mutation ClaimRotatedApiKey($id: ID!) {
  claimRotatedApiKey(id: $id) {
    __typename
    ... on ClaimedRotatedApiKey { id key rotated_at key_transition_expires_at }
    ${ERROR_FIELDS}
  }
}`;

async function create(ctx: RestContext, type: string | null): Promise<Response> {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  const result = await ctx.run(CREATE, { type, sub_type: ctx.params.subType, input: body.value }, ctx.request, ctx.ip);
  const out = fieldOrError<Record<string, unknown>>(result, 'createApiKey');
  return out.ok ? json(stripTypename(out.value)) : out.response;
}

async function list(ctx: RestContext): Promise<Response> {
  const current_page = intParam(ctx.query, 'current_page');
  if (current_page instanceof Response) return current_page;
  const page_size = intParam(ctx.query, 'page_size');
  if (page_size instanceof Response) return page_size;
  const vars = { current_page, page_size, workspace_id: ctx.query.get('workspace_id') || undefined, ids: ctx.query.has('ids') ? (listParam(ctx.query, 'ids') ?? []) : undefined };
  const out = fieldOrError<unknown>(await ctx.run(LIST, vars, ctx.request, ctx.ip), 'apiKeys');
  return out.ok ? json(out.value) : out.response;
}

async function get(ctx: RestContext): Promise<Response> {
  const out = fieldOrError<unknown>(await ctx.run(GET, { id: ctx.params.id }, ctx.request, ctx.ip), 'apiKey');
  return out.ok ? json(out.value) : out.response;
}

/** PUT /api-keys/{id} → `{}` (control-plane-schemas 2.1: update answers an untyped empty object). */
async function update(ctx: RestContext): Promise<Response> {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  const out = fieldOrError<unknown>(await ctx.run(UPDATE, { id: ctx.params.id, input: body.value }, ctx.request, ctx.ip), 'updateApiKey');
  return out.ok ? json({}) : out.response;
}

/** DELETE /api-keys/{id} → `{}`. */
async function remove(ctx: RestContext): Promise<Response> {
  const out = fieldOrError<unknown>(await ctx.run(DELETE, { id: ctx.params.id }, ctx.request, ctx.ip), 'deleteApiKey');
  return out.ok ? json({}) : out.response;
}

/** POST /api-keys/{id}/rotate, body optional → `{id, key, key_transition_expires_at}`. */
async function rotate(ctx: RestContext): Promise<Response> {
  let input: Record<string, unknown> | undefined;
  if ((await ctx.request.clone().text()).trim()) {
    const body = await readJsonBody(ctx.request);
    if (!body.ok) return body.response;
    input = body.value;
  }
  const out = fieldOrError<Record<string, unknown>>(await ctx.run(ROTATE, { id: ctx.params.id, input }, ctx.request, ctx.ip), 'rotateApiKey');
  return out.ok ? json(stripTypename(out.value)) : out.response;
}

/** POST /api-keys/{id}/rotation/claim (no body) → `{id, key, rotated_at, key_transition_expires_at}`, once. */
async function claim(ctx: RestContext): Promise<Response> {
  const out = fieldOrError<Record<string, unknown>>(await ctx.run(CLAIM, { id: ctx.params.id }, ctx.request, ctx.ip), 'claimRotatedApiKey');
  return out.ok ? json(stripTypename(out.value)) : out.response;
}

export const apiKeyRoutes: RestRoute[] = [
  // /v2 (control_base_url) and the public /v1 paths (api-catalogue: Api-Keys).
  { method: 'POST', path: '/v2/api-keys/:subType', handler: (ctx) => create(ctx, null) },
  { method: 'POST', path: '/v1/api-keys/:type/:subType', handler: (ctx) => create(ctx, ctx.params.type ?? null) },
  { method: 'GET', path: '/v2/api-keys', handler: list },
  { method: 'GET', path: '/v1/api-keys', handler: list },
  { method: 'GET', path: '/v2/api-keys/:id', handler: get },
  { method: 'GET', path: '/v1/api-keys/:id', handler: get },
  { method: 'PUT', path: '/v2/api-keys/:id', handler: update },
  { method: 'PUT', path: '/v1/api-keys/:id', handler: update },
  { method: 'DELETE', path: '/v2/api-keys/:id', handler: remove },
  { method: 'DELETE', path: '/v1/api-keys/:id', handler: remove },
  { method: 'POST', path: '/v2/api-keys/:id/rotate', handler: rotate },
  { method: 'POST', path: '/v1/api-keys/:id/rotate', handler: rotate },
  // The new secret of a scheduled rotation, once.
  { method: 'POST', path: '/v2/api-keys/:id/rotation/claim', handler: claim },
  { method: 'POST', path: '/v1/api-keys/:id/rotation/claim', handler: claim },
];
