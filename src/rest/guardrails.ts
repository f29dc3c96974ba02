import { intParam } from './query-params.ts';
import { ERROR_FIELDS, fieldOrError, json, stripTypename } from './graphql-result.ts';
import { readJsonBody } from './read-body.ts';
import type { RestContext, RestRoute } from './types.ts';

// Guardrails (api-catalogue "Guardrails (5)"; control-plane-schemas 2.3): list `{data, total}`,
// get the bare object with checks and actions, create `{id, slug, version_id, created_at,
// created_by}`, update `{id, slug, version_id}`, delete `{}`. Served on /v1 and /v2 like configs.

const ITEM_FIELDS = 'id name slug organisation_id workspace_id status created_at last_updated_at owner_id updated_by version_id object';
const DETAIL_FIELDS = `${ITEM_FIELDS} checks { id parameters name is_enabled }
  actions { deny async on_success { feedback { value weight metadata } } on_fail { feedback { value weight metadata } } }`;

const LIST = `query Guardrails($workspace_id: String, $organisation_id: String, $current_page: Int, $page_size: Int) {
  guardrails(workspace_id: $workspace_id, organisation_id: $organisation_id, current_page: $current_page, page_size: $page_size) {
    data { ${ITEM_FIELDS} } total
  }
}`;
const GET = `query Guardrail($id: ID!) { guardrail(id: $id) { ${DETAIL_FIELDS} } }`;
const CREATE = `mutation CreateGuardrail($input: CreateGuardrailInput!) {
  createGuardrail(input: $input) { __typename ... on CreatedGuardrail { id slug version_id created_at created_by } ${ERROR_FIELDS} }
}`;
const UPDATE = `mutation UpdateGuardrail($id: ID!, $input: UpdateGuardrailInput!) {
  updateGuardrail(id: $id, input: $input) { __typename ... on UpdatedGuardrail { id slug version_id } ${ERROR_FIELDS} }
}`;
const DELETE = `mutation DeleteGuardrail($id: ID!) {
  deleteGuardrail(id: $id) { __typename ... on DeletedGuardrail { id } ${ERROR_FIELDS} }
}`;

/** A check's `name` is optional: leave it out rather than answer null. */
function withoutNullNames(g: Record<string, unknown>): Record<string, unknown> {
  const checks = g.checks as Record<string, unknown>[] | undefined;
  return checks ? { ...g, checks: checks.map(({ name, ...c }) => (name == null ? c : { ...c, name })) } : g;
}

async function list(ctx: RestContext): Promise<Response> {
  const current_page = intParam(ctx.query, 'current_page');
  if (current_page instanceof Response) return current_page;
  const page_size = intParam(ctx.query, 'page_size');
  if (page_size instanceof Response) return page_size;
  const vars = {
    workspace_id: ctx.query.get('workspace_id') || undefined,
    organisation_id: ctx.query.get('organisation_id') || undefined,
    current_page,
    page_size,
  };
  const out = fieldOrError<{ data: unknown[]; total: number }>(await ctx.run(LIST, vars, ctx.request, ctx.ip), 'guardrails');
  return out.ok ? json({ data: out.value.data, total: out.value.total }) : out.response;
}

async function get(ctx: RestContext): Promise<Response> {
  const out = fieldOrError<Record<string, unknown>>(await ctx.run(GET, { id: ctx.params.id }, ctx.request, ctx.ip), 'guardrail');
  return out.ok ? json(withoutNullNames(out.value)) : out.response;
}

async function create(ctx: RestContext): Promise<Response> {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  const out = fieldOrError<Record<string, unknown>>(await ctx.run(CREATE, { input: body.value }, ctx.request, ctx.ip), 'createGuardrail');
  return out.ok ? json(stripTypename(out.value)) : out.response;
}

async function update(ctx: RestContext): Promise<Response> {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  const out = fieldOrError<Record<string, unknown>>(await ctx.run(UPDATE, { id: ctx.params.id, input: body.value }, ctx.request, ctx.ip), 'updateGuardrail');
  return out.ok ? json(stripTypename(out.value)) : out.response;
}

async function remove(ctx: RestContext): Promise<Response> {
  const out = fieldOrError<unknown>(await ctx.run(DELETE, { id: ctx.params.id }, ctx.request, ctx.ip), 'deleteGuardrail');
  return out.ok ? json({}) : out.response;
}

export const guardrailRoutes: RestRoute[] = ['/v1', '/v2'].flatMap((v) => [
  { method: 'GET', path: `${v}/guardrails`, handler: list },
  { method: 'POST', path: `${v}/guardrails`, handler: create },
  { method: 'GET', path: `${v}/guardrails/:id`, handler: get },
  { method: 'PUT', path: `${v}/guardrails/:id`, handler: update },
  { method: 'DELETE', path: `${v}/guardrails/:id`, handler: remove },
]);
