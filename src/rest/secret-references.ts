import { ERROR_FIELDS, fieldOrError, json } from './graphql-result.ts';
import { intParam } from './query-params.ts';
import { readJsonBody } from './read-body.ts';
import type { RestContext, RestRoute } from './types.ts';

// Secret references (api-catalogue "Secret-References (5)"; control-plane-schemas 2.17): create →
// `{id, slug, object}`, list → `{object, total, data}`, get → the detail object, update and delete → `{}`.

const DETAIL =
  'id organisation_id name slug description manager_type secret_path secret_key allow_all_workspaces allowed_workspaces tags status created_by created_at last_updated_at auth_config object';

const CREATE = `mutation C($input: CreateSecretReferenceInput!) {
  createSecretReference(input: $input) { __typename ... on CreatedSecretReference { id slug object } ${ERROR_FIELDS} }
}`;
const UPDATE = `mutation U($id: ID!, $input: UpdateSecretReferenceInput!) {
  updateSecretReference(id: $id, input: $input) { __typename ... on ChangedSecretReference { id } ${ERROR_FIELDS} }
}`;
const DELETE = `mutation D($id: ID!) { deleteSecretReference(id: $id) { __typename ... on ChangedSecretReference { id } ${ERROR_FIELDS} } }`;
const GET = `query G($id: ID!) { secretReference(id: $id) { ${DETAIL} } }`;
const LIST = `query L($manager_type: String, $tags: String, $search: String, $current_page: Int, $page_size: Int) {
  secretReferences(manager_type: $manager_type, tags: $tags, search: $search, current_page: $current_page, page_size: $page_size) {
    object total data { id name slug manager_type status created_at last_updated_at object }
  }
}`;

async function create(ctx: RestContext): Promise<Response> {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  const out = fieldOrError<{ id: string; slug: string; object: string }>(await ctx.run(CREATE, { input: body.value }, ctx.request, ctx.ip), 'createSecretReference');
  return out.ok ? json({ id: out.value.id, slug: out.value.slug, object: out.value.object }) : out.response;
}

async function list(ctx: RestContext): Promise<Response> {
  const current = intParam(ctx.query, 'current_page');
  if (current instanceof Response) return current;
  const size = intParam(ctx.query, 'page_size');
  if (size instanceof Response) return size;
  const vars = {
    manager_type: ctx.query.get('manager_type') || undefined,
    tags: ctx.query.get('tags') || undefined,
    search: ctx.query.get('search') ?? undefined,
    current_page: current,
    page_size: size,
  };
  const out = fieldOrError<unknown>(await ctx.run(LIST, vars, ctx.request, ctx.ip), 'secretReferences');
  return out.ok ? json(out.value) : out.response;
}

async function get(ctx: RestContext): Promise<Response> {
  const out = fieldOrError<unknown>(await ctx.run(GET, { id: ctx.params.id }, ctx.request, ctx.ip), 'secretReference');
  return out.ok ? json(out.value) : out.response;
}

async function update(ctx: RestContext): Promise<Response> {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  const out = fieldOrError<unknown>(await ctx.run(UPDATE, { id: ctx.params.id, input: body.value }, ctx.request, ctx.ip), 'updateSecretReference');
  return out.ok ? json({}) : out.response;
}

async function remove(ctx: RestContext): Promise<Response> {
  const out = fieldOrError<unknown>(await ctx.run(DELETE, { id: ctx.params.id }, ctx.request, ctx.ip), 'deleteSecretReference');
  return out.ok ? json({}) : out.response;
}

export const secretReferenceRoutes: RestRoute[] = ['/v1', '/v2'].flatMap((v) => [
  { method: 'POST', path: `${v}/secret-references`, handler: create },
  { method: 'GET', path: `${v}/secret-references`, handler: list },
  { method: 'GET', path: `${v}/secret-references/:id`, handler: get },
  { method: 'PUT', path: `${v}/secret-references/:id`, handler: update },
  { method: 'DELETE', path: `${v}/secret-references/:id`, handler: remove },
]);
