// GET /logs (list with filters and cursor paging) and GET /logs/{logId} (issue 9, item 1).
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { invalidParameter, notFound } from '../../domain/errors.ts';
import { parseWith } from '../../domain/validation.ts';
import type { Actor } from '../auth/actor.ts';
import { isOrganisationKey } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { filterSql, parseLogFilter, resolveFilterWorkspace } from './log-filters.ts';
import { toLogObject, toRequestLogItem, type LogDbRow, type LogObject, type RequestLogItem } from './request-log-view.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Columns for lists: everything but headers and bodies. */
export const ITEM_COLUMNS = `l.id, l.request_id, l.trace_id, l.organisation_id, l.workspace_id, l.api_key_id, l.user_id, l.metadata, l.provider,
  l.model, l.endpoint, l.method, l.request_url, l.status, l.latency_ms, l.upstream_latency_ms, l.prompt_tokens, l.completion_tokens,
  l.total_tokens, l.cost, l.cost_currency, l.cache_status, l.retry_count, l.target_path, l.guardrail_verdicts, l.is_stream, l.is_proxy,
  l.mode, l.config_id, l.virtual_key, l.prompt_slug, l.span_id, l.span_name, l.error_code, l.source, l.bodies_truncated, l.started_at,
  l.started_at::text as cursor_at, w.slug as workspace_slug`;

export interface RequestLogList {
  object: 'list';
  data: RequestLogItem[];
  has_more: boolean;
  /** Pass as `after` for the next (older) page; null on the last page. */
  next_cursor: string | null;
}

const pagingSchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  after: z.string().min(1).optional(),
});

const encodeCursor = (at: string, id: string) => Buffer.from(JSON.stringify([at, id])).toString('base64url');

function decodeCursor(cursor: string): [string, string] {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && !Number.isNaN(Date.parse(v[0])) && typeof v[1] === 'string' && UUID.test(v[1])) return [v[0], v[1]];
  } catch {
    /* below */
  }
  throw invalidParameter('after', 'after: not a cursor this list returned');
}

/** Newest first; `after` continues below the page that returned it. */
export async function listRequestLogs(em: EntityManager, actor: Actor, args: { filters?: unknown; limit?: unknown; after?: unknown }): Promise<RequestLogList> {
  authorize(actor, 'logs.list');
  const paging = parseWith(pagingSchema, { limit: args.limit ?? undefined, after: args.after ?? undefined });
  const filters = parseLogFilter(args.filters ?? {});
  const workspaceIdResolved = await resolveFilterWorkspace(em, actor, filters);
  const { where, params } = filterSql({ ...filters, organisationId: actor.organisationId, workspaceIdResolved });
  const conds = [where];
  if (paging.after) {
    const [at, id] = decodeCursor(paging.after);
    conds.push('(l.started_at, l.id) < (?::timestamptz, ?::uuid)');
    params.push(at, id);
  }
  const rows = await em.getConnection().execute<(LogDbRow & { cursor_at: string })[]>(
    `select ${ITEM_COLUMNS} from request_log l left join workspace w on w.id = l.workspace_id
      where ${conds.join(' and ')} order by l.started_at desc, l.id desc limit ?`,
    [...params, paging.limit + 1],
  );
  const hasMore = rows.length > paging.limit;
  const page = rows.slice(0, paging.limit);
  const last = page.at(-1);
  return { object: 'list', data: page.map(toRequestLogItem), has_more: hasMore, next_cursor: hasMore && last ? encodeCursor(last.cursor_at, last.id) : null };
}

/** One log, in the caller's reach (workspace keys: their workspace only). */
export async function getRequestLog(em: EntityManager, actor: Actor, id: string): Promise<LogObject> {
  authorize(actor, 'logs.view');
  if (!UUID.test(id)) throw notFound('Log', 'logId');
  const rows = await em.getConnection().execute<LogDbRow[]>(
    `select l.*, w.slug as workspace_slug from request_log l left join workspace w on w.id = l.workspace_id
      where l.id = ? and l.organisation_id = ? limit 1`,
    [id, actor.organisationId],
  );
  const row = rows[0];
  if (!row || (!isOrganisationKey(actor) && row.workspace_id !== actor.workspaceId)) throw notFound('Log', 'logId');
  return toLogObject(row);
}
