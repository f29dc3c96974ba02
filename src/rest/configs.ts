import { ERROR_FIELDS, fieldOrError, json } from './graphql-result.ts';
import { readJsonBody } from './read-body.ts';
import type { RestContext, RestRoute } from './types.ts';

// Configs (api-catalogue "Configs (6)"; control-plane-schemas 2.2): `{success, data}` envelopes,
// except versions (`{object, total, data}`) and delete (`{}`).

const ITEM_FIELDS = 'id name slug organisation_id workspace_id is_default status owner_id updated_by created_at last_updated_at version_id object';

const CREATE = `mutation CreateConfig($input: CreateConfigInput!) {
  createConfig(input: $input) {
    __typename
    ... on CreatedConfig { id version_id }
    ${ERROR_FIELDS}
  }
}`;

const LIST = `query Configs($workspace_id: String) { configs(workspace_id: $workspace_id) { ${ITEM_FIELDS} } }`;

const GET = `query Config($id: ID!) { config(id: $id) { config ${ITEM_FIELDS} } }`;

const VERSIONS = `query ConfigVersions($id: ID!) {
  configVersions(id: $id) { object total data { ${ITEM_FIELDS} version config format } }
}`;

const UPDATE = `mutation UpdateConfig($id: ID!, $input: UpdateConfigInput!) {
  updateConfig(id: $id, input: $input) {
    __typename
    ... on UpdatedConfig { version_id }
    ${ERROR_FIELDS}
  }
}`;

const DELETE = `mutation DeleteConfig($id: ID!) {
  deleteConfig(id: $id) {
    __typename
    ... on DeletedConfig { id }
    ${ERROR_FIELDS}
  }
}`;

/** POST /configs → `{success, data:{id, version_id}}`. */
async function create(ctx: RestContext): Promise<Response> {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  const out = fieldOrError<{ id: string; version_id: string }>(await ctx.run(CREATE, { input: body.value }, ctx.request, ctx.ip), 'createConfig');
  return out.ok ? json({ success: true, data: { id: out.value.id, version_id: out.value.version_id } }) : out.response;
}

async function list(ctx: RestContext): Promise<Response> {
  const out = fieldOrError<unknown[]>(await ctx.run(LIST, { workspace_id: ctx.query.get('workspace_id') || undefined }, ctx.request, ctx.ip), 'configs');
  return out.ok ? json({ success: true, data: out.value }) : out.response;
}

async function get(ctx: RestContext): Promise<Response> {
  const out = fieldOrError<unknown>(await ctx.run(GET, { id: ctx.params.id }, ctx.request, ctx.ip), 'config');
  return out.ok ? json({ success: true, data: out.value }) : out.response;
}

async function versions(ctx: RestContext): Promise<Response> {
  const out = fieldOrError<{ data: Record<string, unknown>[] }>(await ctx.run(VERSIONS, { id: ctx.params.id }, ctx.request, ctx.ip), 'configVersions');
  return out.ok ? json(out.value) : out.response;
}

/** PUT /configs/{id or slug} → `{success, data:{version_id}}`. */
async function update(ctx: RestContext): Promise<Response> {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  const out = fieldOrError<{ version_id: string | null }>(await ctx.run(UPDATE, { id: ctx.params.id, input: body.value }, ctx.request, ctx.ip), 'updateConfig');
  return out.ok ? json({ success: true, data: { version_id: out.value.version_id } }) : out.response;
}

/** DELETE /configs/{id or slug} → `{}`. */
async function remove(ctx: RestContext): Promise<Response> {
  const out = fieldOrError<unknown>(await ctx.run(DELETE, { id: ctx.params.id }, ctx.request, ctx.ip), 'deleteConfig');
  return out.ok ? json({}) : out.response;
}

export const configRoutes: RestRoute[] = ['/v1', '/v2'].flatMap((v) => [
  { method: 'POST', path: `${v}/configs`, handler: create },
  { method: 'GET', path: `${v}/configs`, handler: list },
  { method: 'GET', path: `${v}/configs/:id`, handler: get },
  { method: 'PUT', path: `${v}/configs/:id`, handler: update },
  { method: 'DELETE', path: `${v}/configs/:id`, handler: remove },
  { method: 'GET', path: `${v}/configs/:id/versions`, handler: versions },
]);
