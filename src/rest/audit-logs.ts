import { errorResponse, invalidParameter } from '../domain/errors.ts';
import { fieldOrError, json } from './graphql-result.ts';
import type { RestContext, RestRoute } from './types.ts';

const QUERY = `query AuditLogs($filter: AuditLogFilter!) {
  auditLogs(filter: $filter) {
    object total records {
      id timestamp method uri request_id request_body query_params request_headers user_id user_type
      organisation_id workspace_id response_status_code resource_type resource_id action client_ip country
    }
  }
}`;

const INT_PARAMS = new Set(['response_status_code', 'current_page', 'page_size']);
const KNOWN = new Set([
  'start_time', 'end_time', 'organisation_id', 'method', 'uri', 'request_id', 'user_id', 'user_type', 'workspace_id',
  'response_status_code', 'resource_type', 'action', 'client_ip', 'country', 'current_page', 'page_size',
]);

async function list(ctx: RestContext): Promise<Response> {
  const filter: Record<string, unknown> = {};
  for (const [name, value] of ctx.query) {
    if (!KNOWN.has(name)) return errorResponse(invalidParameter(name, `Unknown query parameter ${name}`));
    if (INT_PARAMS.has(name)) {
      if (!/^\d+$/.test(value)) return errorResponse(invalidParameter(name, `${name} must be a non-negative integer`));
      filter[name] = Number(value);
    } else filter[name] = value;
  }
  for (const required of ['start_time', 'end_time', 'organisation_id']) {
    if (filter[required] === undefined) return errorResponse(invalidParameter(required, `${required} is required`));
  }
  const out = fieldOrError<unknown>(await ctx.run(QUERY, { filter }, ctx.request, ctx.ip), 'auditLogs', 'filter');
  return out.ok ? json(out.value) : out.response;
}

export const auditLogRoutes: RestRoute[] = [
  { method: 'GET', path: '/v1/audit-logs', handler: list },
  { method: 'GET', path: '/v2/audit-logs', handler: list },
];
