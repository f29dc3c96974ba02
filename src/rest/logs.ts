import { AppError, errorResponse, invalidParameter } from '../domain/errors.ts';
import { FILTER_KEYS } from '../services/request-logs/log-filters.ts';
import { ERROR_FIELDS, fieldOrError, json } from './graphql-result.ts';
import type { RestContext, RestRoute } from './types.ts';

// Request logs (issue 9, item 1; api-catalogue "Logs (2)": POST /logs and GET /logs/{logId}) and
// the list, GET /logs, with the common filter parameters (api-catalogue §3.4) and cursor paging
// (`limit`, `after` = the previous page's next_cursor).

const ITEM_FIELDS = `id object trace_id request_id organisation_id workspace_id workspace_slug api_key_id user metadata provider ai_model
  endpoint method request_url status is_success response_time upstream_response_time req_units res_units total_units cost cost_currency
  cache_status retry_count target_path guardrail_verdicts is_stream is_proxy mode config virtual_key prompt_slug span_id span_name
  error_code source bodies_truncated created_at`;

const LIST = `query RequestLogs($filters: JSON, $limit: Int, $after: String) {
  requestLogs(filters: $filters, limit: $limit, after: $after) { object has_more next_cursor data { ${ITEM_FIELDS} } }
}`;

const GET = `query RequestLog($id: ID!) {
  requestLog(id: $id) { _id object request response organisation_id workspace_id created_at metrics finalUntransformedRequest transformedRequest originalResponse }
}`;

const INSERT = `mutation InsertLogs($logs: JSON!, $workspace_id: String) {
  insertLogs(logs: $logs, workspace_id: $workspace_id) { __typename ... on InsertedLogs { stored } ${ERROR_FIELDS} }
}`;

/** A query parameter that is not a number stays a string: the service names it in its 400. */
function filtersOf(q: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of FILTER_KEYS) {
    const v = q.get(k);
    if (v !== null && v !== '') out[k] = v;
  }
  return out;
}

async function list(ctx: RestContext): Promise<Response> {
  const limitRaw = ctx.query.get('limit');
  const limit = limitRaw === null || limitRaw === '' ? undefined : Number(limitRaw);
  if (limit !== undefined && !Number.isInteger(limit)) return errorResponse(invalidParameter('limit', 'limit: must be an integer from 1 to 500'));
  const out = fieldOrError<unknown>(
    await ctx.run(LIST, { filters: filtersOf(ctx.query), limit, after: ctx.query.get('after') || undefined }, ctx.request, ctx.ip),
    'requestLogs',
  );
  return out.ok ? json(out.value) : out.response;
}

async function get(ctx: RestContext): Promise<Response> {
  const out = fieldOrError<unknown>(await ctx.run(GET, { id: ctx.params.logId }, ctx.request, ctx.ip), 'requestLog');
  return out.ok ? json(out.value) : out.response;
}

// Custom logs carry whole request and response bodies, up to 1000 per call.
const MAX_LOG_BODY_BYTES = 16 * 1_048_576;

/** A JSON object or array body (POST /logs takes one log or an array), or its 400. */
async function readLogsBody(request: Request): Promise<{ ok: true; value: unknown } | { ok: false; response: Response }> {
  const fail = (status: number, code: string, message: string) => ({ ok: false as const, response: errorResponse(new AppError(status, 'invalid_request_error', code, message, 'body')) });
  const text = await request.text();
  if (Buffer.byteLength(text) > MAX_LOG_BODY_BYTES) return fail(413, 'body_too_large', 'Request body exceeds 16 MiB');
  if (!text.trim()) return fail(400, 'missing_body', 'A JSON body is required: one log or an array of logs');
  try {
    const value: unknown = JSON.parse(text);
    if (!value || typeof value !== 'object') return fail(400, 'invalid_body', 'The body must be a JSON object or array');
    return { ok: true, value };
  } catch {
    return fail(400, 'invalid_json', 'The body is not valid JSON');
  }
}

/** POST /logs: one CustomLog or an array → 200 with no body. */
async function insert(ctx: RestContext): Promise<Response> {
  const body = await readLogsBody(ctx.request);
  if (!body.ok) return body.response;
  const out = fieldOrError<unknown>(await ctx.run(INSERT, { logs: body.value, workspace_id: ctx.query.get('workspace_id') || undefined }, ctx.request, ctx.ip), 'insertLogs', 'logs');
  return out.ok ? new Response(null, { status: 200 }) : out.response;
}

const VALUES = `query LogMetadataValues($key: String!, $params: JSON) { logMetadataValues(key: $key, params: $params) { object total data { value count last_seen } } }`;
const GROUPS = `query LogMetadataGroups($key: String!, $params: JSON) {
  logMetadataGroups(key: $key, params: $params) { object total data { metadata_value requests errors cost total_units avg_response_time first_seen last_seen } }
}`;

const byMetadata = (document: string, field: string) => async (ctx: RestContext): Promise<Response> => {
  const params = Object.fromEntries([...ctx.query].filter(([, v]) => v !== ''));
  const out = fieldOrError<unknown>(await ctx.run(document, { key: ctx.params.metadataKey, params }, ctx.request, ctx.ip), field);
  return out.ok ? json(out.value) : out.response;
};

export const logRoutes: RestRoute[] = [
  // Draft branch routes (api-catalogue "Logs — draft branch (2)").
  { method: 'GET', path: '/v1/logs/metadata/:metadataKey', handler: byMetadata(VALUES, 'logMetadataValues') },
  { method: 'GET', path: '/v1/logs/groups/metadata/:metadataKey', handler: byMetadata(GROUPS, 'logMetadataGroups') },
  { method: 'GET', path: '/v1/logs', handler: list },
  { method: 'POST', path: '/v1/logs', handler: insert },
  { method: 'GET', path: '/v1/logs/:logId', handler: get },
];
