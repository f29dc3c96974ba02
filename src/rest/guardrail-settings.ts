import { intParam } from './query-params.ts';
import { ERROR_FIELDS, fieldOrError, json, stripTypename } from './graphql-result.ts';
import { readJsonBody } from './read-body.ts';
import type { RestContext, RestRoute } from './types.ts';

// Organisation default guardrails and workspace exclusions (gateway-spec, "Other control-plane
// operations"): GET/PUT /v1/admin/organisation/defaults, GET/PUT
// /v1/workspace-exclusions/{input,output}-guardrails.

const DEFAULTS_FIELDS = 'input_guardrails { id slug } output_guardrails { id slug } object';
const EXCLUSION_PAGE = 'object total data { workspace_id workspace_slug workspace_name excluded created_at created_by }';

const GET_DEFAULTS = `query OrganisationDefaults { organisationDefaults { ${DEFAULTS_FIELDS} } }`;
const PUT_DEFAULTS = `mutation UpdateOrganisationDefaults($input: OrganisationDefaultsInput!) {
  updateOrganisationDefaults(input: $input) { __typename ... on OrganisationDefaults { ${DEFAULTS_FIELDS} } ${ERROR_FIELDS} }
}`;
const GET_EXCLUSIONS = `query WorkspaceExclusions($direction: GuardrailDirection!, $current_page: Int, $page_size: Int) {
  workspaceExclusions(direction: $direction, current_page: $current_page, page_size: $page_size) { ${EXCLUSION_PAGE} }
}`;
const PUT_EXCLUSIONS = `mutation UpdateWorkspaceExclusions($direction: GuardrailDirection!, $input: WorkspaceExclusionsInput!) {
  updateWorkspaceExclusions(direction: $direction, input: $input) { __typename ... on WorkspaceExclusionPage { ${EXCLUSION_PAGE} } ${ERROR_FIELDS} }
}`;

async function getDefaults(ctx: RestContext): Promise<Response> {
  const out = fieldOrError<unknown>(await ctx.run(GET_DEFAULTS, {}, ctx.request, ctx.ip), 'organisationDefaults');
  return out.ok ? json(out.value) : out.response;
}

async function putDefaults(ctx: RestContext): Promise<Response> {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  const out = fieldOrError<Record<string, unknown>>(await ctx.run(PUT_DEFAULTS, { input: body.value }, ctx.request, ctx.ip), 'updateOrganisationDefaults');
  return out.ok ? json(stripTypename(out.value)) : out.response;
}

const getExclusions = (direction: 'input' | 'output') => async (ctx: RestContext): Promise<Response> => {
  const current_page = intParam(ctx.query, 'current_page');
  if (current_page instanceof Response) return current_page;
  const page_size = intParam(ctx.query, 'page_size');
  if (page_size instanceof Response) return page_size;
  const out = fieldOrError<unknown>(await ctx.run(GET_EXCLUSIONS, { direction, current_page, page_size }, ctx.request, ctx.ip), 'workspaceExclusions');
  return out.ok ? json(out.value) : out.response;
};

const putExclusions = (direction: 'input' | 'output') => async (ctx: RestContext): Promise<Response> => {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  const out = fieldOrError<Record<string, unknown>>(await ctx.run(PUT_EXCLUSIONS, { direction, input: body.value }, ctx.request, ctx.ip), 'updateWorkspaceExclusions');
  return out.ok ? json(stripTypename(out.value)) : out.response;
};

export const guardrailSettingsRoutes: RestRoute[] = [
  { method: 'GET', path: '/v1/admin/organisation/defaults', handler: getDefaults },
  { method: 'PUT', path: '/v1/admin/organisation/defaults', handler: putDefaults },
  ...(['input', 'output'] as const).flatMap((d) => [
    { method: 'GET', path: `/v1/workspace-exclusions/${d}-guardrails`, handler: getExclusions(d) },
    { method: 'PUT', path: `/v1/workspace-exclusions/${d}-guardrails`, handler: putExclusions(d) },
  ]),
];
