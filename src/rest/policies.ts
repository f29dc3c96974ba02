import { errorResponse, invalidParameter } from '../domain/errors.ts';
import { ERROR_FIELDS, fieldOrError, json } from './graphql-result.ts';
import { intParam } from './query-params.ts';
import { readJsonBody } from './read-body.ts';
import type { RestContext, RestRoute } from './types.ts';

// Rate-limit and usage-limit policies (api-catalogue "Rate Limits Policies (5)", "Usage Limits
// Policies (7)"; control-plane-schemas 2.11, 2.12): create → `{id, object}`, list →
// `{object, data, total}` (items without `object`), get → the object, update and delete → `{}`.
// Served on /v1 (published spec) and /v2 (gateway-spec control_base_url).

const RATE_ITEM = 'id name target conditions group_by type unit value status workspace_id organisation_id created_at last_updated_at';
const USAGE_ITEM =
  'id name conditions group_by type credit_limit alert_threshold periodic_reset periodic_reset_days next_usage_reset_at last_reset_at status workspace_id organisation_id created_at last_updated_at';

const mutation = (name: string, input: string, field: string, withId: boolean, withInput = true, result = 'ChangedPolicy { id }') => `mutation M(${withId ? '$id: ID!' : ''}${withId && withInput ? ', ' : ''}${withInput ? `$input: ${input}!` : ''}) {
  ${field}(${[withId ? 'id: $id' : '', withInput ? 'input: $input' : ''].filter(Boolean).join(', ')}) {
    __typename
    ... on ${result}
    ${ERROR_FIELDS}
  }
}`;

interface PagingVars {
  current_page?: number;
  page_size?: number;
}

/** `current_page` / `page_size` query parameters, or the 400 naming one. */
function paging(ctx: RestContext): PagingVars | Response {
  const current = intParam(ctx.query, 'current_page');
  if (current instanceof Response) return current;
  const size = intParam(ctx.query, 'page_size');
  if (size instanceof Response) return size;
  return { ...(current === undefined ? {} : { current_page: current }), ...(size === undefined ? {} : { page_size: size }) };
}

const q = (ctx: RestContext, name: string): string | undefined => ctx.query.get(name) || undefined;

function kindRoutes(kind: { path: string; item: string; create: string; update: string; del: string; list: string; get: string; listFilters: string[]; createInput: string; updateInput: string }) {
  const CREATE = mutation('Create', kind.createInput, kind.create, false, true, 'CreatedPolicy { id object }');
  const UPDATE = mutation('Update', kind.updateInput, kind.update, true);
  const DELETE = mutation('Delete', '', kind.del, true, false);
  const filterVars = kind.listFilters.map((f) => `$${f}: String`).join(', ');
  const filterArgs = kind.listFilters.map((f) => `${f}: $${f}`).join(', ');
  const LIST = `query L(${filterVars}, $current_page: Int, $page_size: Int) {
    ${kind.list}(${filterArgs}, current_page: $current_page, page_size: $page_size) { object total data { ${kind.item} } }
  }`;

  async function create(ctx: RestContext): Promise<Response> {
    const body = await readJsonBody(ctx.request);
    if (!body.ok) return body.response;
    const out = fieldOrError<{ id: string; object: string }>(await ctx.run(CREATE, { input: body.value }, ctx.request, ctx.ip), kind.create);
    return out.ok ? json({ id: out.value.id, object: out.value.object }) : out.response;
  }

  async function list(ctx: RestContext): Promise<Response> {
    const p = paging(ctx);
    if (p instanceof Response) return p;
    const vars: Record<string, unknown> = { ...p };
    for (const f of kind.listFilters) vars[f] = q(ctx, f);
    const out = fieldOrError<{ object: string; total: number; data: unknown[] }>(await ctx.run(LIST, vars, ctx.request, ctx.ip), kind.list);
    return out.ok ? json({ object: out.value.object, data: out.value.data, total: out.value.total }) : out.response;
  }

  async function update(ctx: RestContext): Promise<Response> {
    const body = await readJsonBody(ctx.request);
    if (!body.ok) return body.response;
    const out = fieldOrError<unknown>(await ctx.run(UPDATE, { id: ctx.params.id, input: body.value }, ctx.request, ctx.ip), kind.update);
    return out.ok ? json({}) : out.response;
  }

  async function remove(ctx: RestContext): Promise<Response> {
    const out = fieldOrError<unknown>(await ctx.run(DELETE, { id: ctx.params.id }, ctx.request, ctx.ip), kind.del);
    return out.ok ? json({}) : out.response;
  }

  return { create, list, update, remove };
}

const rate = kindRoutes({
  path: 'rate-limits',
  item: RATE_ITEM,
  create: 'createRateLimitPolicy',
  update: 'updateRateLimitPolicy',
  del: 'deleteRateLimitPolicy',
  list: 'rateLimitPolicies',
  get: 'rateLimitPolicy',
  listFilters: ['workspace_id', 'status', 'type', 'unit', 'target'],
  createInput: 'CreateRateLimitPolicyInput',
  updateInput: 'UpdateRateLimitPolicyInput',
});

const usage = kindRoutes({
  path: 'usage-limits',
  item: USAGE_ITEM,
  create: 'createUsageLimitPolicy',
  update: 'updateUsageLimitPolicy',
  del: 'deleteUsageLimitPolicy',
  list: 'usageLimitPolicies',
  get: 'usageLimitPolicy',
  listFilters: ['workspace_id', 'status', 'type'],
  createInput: 'CreateUsageLimitPolicyInput',
  updateInput: 'UpdateUsageLimitPolicyInput',
});

const GET_RATE = `query G($id: ID!, $status: String) { rateLimitPolicy(id: $id, status: $status) { ${RATE_ITEM} object } }`;

async function getRate(ctx: RestContext): Promise<Response> {
  const out = fieldOrError<unknown>(await ctx.run(GET_RATE, { id: ctx.params.id, status: q(ctx, 'status') }, ctx.request, ctx.ip), 'rateLimitPolicy');
  return out.ok ? json(out.value) : out.response;
}

const GET_USAGE = `query G($id: ID!, $status: String, $include_usage: Boolean) {
  usageLimitPolicy(id: $id, status: $status, include_usage: $include_usage) { ${USAGE_ITEM} value_key_usage_map object }
}`;

/** `include_usage=true` adds value_key_usage_map; without it the field is left out. */
async function getUsage(ctx: RestContext): Promise<Response> {
  const raw = ctx.query.get('include_usage');
  if (raw !== null && raw !== '' && raw !== 'true' && raw !== 'false') return errorResponse(invalidParameter('include_usage', 'include_usage must be true or false'));
  const includeUsage = raw === 'true';
  const out = fieldOrError<Record<string, unknown>>(await ctx.run(GET_USAGE, { id: ctx.params.id, status: q(ctx, 'status'), include_usage: includeUsage }, ctx.request, ctx.ip), 'usageLimitPolicy');
  if (!out.ok) return out.response;
  const { value_key_usage_map, ...rest } = out.value;
  return json(includeUsage ? { ...rest, value_key_usage_map } : rest);
}

const ENTITIES = `query E($id: ID!, $status: String, $search: String, $current_page: Int, $page_size: Int) {
  usageLimitPolicyEntities(id: $id, status: $status, search: $search, current_page: $current_page, page_size: $page_size) { object total data { id value_key current_usage } }
}`;

async function entities(ctx: RestContext): Promise<Response> {
  const p = paging(ctx);
  if (p instanceof Response) return p;
  const vars = { id: ctx.params.id, status: q(ctx, 'status'), search: q(ctx, 'search'), ...p };
  const out = fieldOrError<{ object: string; total: number; data: unknown[] }>(await ctx.run(ENTITIES, vars, ctx.request, ctx.ip), 'usageLimitPolicyEntities');
  return out.ok ? json({ object: out.value.object, data: out.value.data, total: out.value.total }) : out.response;
}

const RESET = `mutation R($id: ID!, $entity_id: ID!) {
  resetUsageLimitPolicyEntity(id: $id, entity_id: $entity_id) { __typename ... on ResetUsageLimitPolicyEntity { id } ${ERROR_FIELDS} }
}`;

async function resetEntity(ctx: RestContext): Promise<Response> {
  const out = fieldOrError<unknown>(await ctx.run(RESET, { id: ctx.params.id, entity_id: ctx.params.entityId }, ctx.request, ctx.ip), 'resetUsageLimitPolicyEntity');
  return out.ok ? json({}) : out.response;
}

export const policyRoutes: RestRoute[] = ['/v1', '/v2'].flatMap((v) => [
  { method: 'POST', path: `${v}/policies/rate-limits`, handler: rate.create },
  { method: 'GET', path: `${v}/policies/rate-limits`, handler: rate.list },
  { method: 'GET', path: `${v}/policies/rate-limits/:id`, handler: getRate },
  { method: 'PUT', path: `${v}/policies/rate-limits/:id`, handler: rate.update },
  { method: 'DELETE', path: `${v}/policies/rate-limits/:id`, handler: rate.remove },
  { method: 'POST', path: `${v}/policies/usage-limits`, handler: usage.create },
  { method: 'GET', path: `${v}/policies/usage-limits`, handler: usage.list },
  { method: 'GET', path: `${v}/policies/usage-limits/:id`, handler: getUsage },
  { method: 'PUT', path: `${v}/policies/usage-limits/:id`, handler: usage.update },
  { method: 'DELETE', path: `${v}/policies/usage-limits/:id`, handler: usage.remove },
  { method: 'GET', path: `${v}/policies/usage-limits/:id/entities`, handler: entities },
  { method: 'PUT', path: `${v}/policies/usage-limits/:id/entities/:entityId/reset`, handler: resetEntity },
]);
