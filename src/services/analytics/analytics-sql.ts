// The shared shape of analytics queries: the caller's filters over `request_log l` (or feedback
// over `feedback f`), bucketed by UTC time with empty buckets filled, and a summary row.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { LogFilter } from '../request-logs/log-filters.ts';
import { filterSql } from '../request-logs/log-filters.ts';
import type { Bucket } from './analytics-input.ts';

export interface Scope {
  em: EntityManager;
  filter: LogFilter & { time_of_generation_min: Date; time_of_generation_max: Date };
  bucket: Bucket;
}

type Row = Record<string, unknown>;
const run = (em: EntityManager, sql: string, params: unknown[]) => em.getConnection().execute<Row[]>(sql, params);

const TS = `to_char(s.b, 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;
const SERIES = `select generate_series(date_trunc(?, ?::timestamptz at time zone 'UTC'), date_trunc(?, ?::timestamptz at time zone 'UTC'), ('1 ' || ?)::interval) as b`;
const seriesParams = (s: Scope) => [s.bucket, s.filter.time_of_generation_min, s.bucket, s.filter.time_of_generation_max, s.bucket];

/** Per-bucket aggregates of the matching logs (`aggs` are select expressions over `l`, aliased). */
export async function logSeries(s: Scope, aggs: string, extraWhere = 'true'): Promise<(Row & { timestamp: string })[]> {
  const { where, params } = filterSql(s.filter);
  return run(
    s.em,
    `with s as (${SERIES}),
          a as (select date_trunc(?, l.started_at at time zone 'UTC') as b, ${aggs} from request_log l where ${where} and (${extraWhere}) group by 1)
     select ${TS} as timestamp, a.* from s left join a on a.b = s.b order by s.b`,
    [...seriesParams(s), s.bucket, ...params],
  ) as Promise<(Row & { timestamp: string })[]>;
}

/**
 * Per-bucket aggregates and the same aggregates over the whole range, in one scan
 * (`group by rollup`: the row without bucket is the summary).
 */
export async function logSeriesAndSummary(s: Scope, aggs: string, extraWhere = 'true'): Promise<{ sum: Row; rows: (Row & { timestamp: string })[] }> {
  const { where, params } = filterSql(s.filter);
  const rows = await run(
    s.em,
    `with s as (${SERIES}),
          a as materialized (select date_trunc(?, l.started_at at time zone 'UTC') as b, ${aggs} from request_log l where ${where} and (${extraWhere}) group by rollup (1))
     select ${TS} as timestamp, a.* from s left join a on a.b = s.b
     union all select null as timestamp, a.* from a where a.b is null`,
    [...seriesParams(s), s.bucket, ...params],
  );
  const points = rows.filter((r) => r.timestamp !== null).sort((x, y) => String(x.timestamp).localeCompare(String(y.timestamp)));
  return { sum: rows.find((r) => r.timestamp === null) ?? {}, rows: points as (Row & { timestamp: string })[] };
}

/**
 * Users per bucket and over the range, from one pass that first reduces the logs to (bucket,
 * user) pairs (a hash aggregate), instead of count(distinct) sorting every bucket's logs.
 */
export async function userSeries(s: Scope): Promise<{ sum: { u: number; t: number }; rows: { timestamp: string; u: number; t: number }[] }> {
  const { where, params } = filterSql(s.filter);
  const rows = await run(
    s.em,
    `with s as (${SERIES}),
          du as materialized (select date_trunc(?, l.started_at at time zone 'UTC') as b, l.user_id, count(*) as n
                                from request_log l where ${where} and l.user_id is not null group by 1, 2),
          a as (select b, count(*) as u, sum(n) as t from du group by b)
     select ${TS} as timestamp, a.u, a.t from s left join a on a.b = s.b
     union all select null, (select count(distinct user_id) from du), (select sum(n) from du)`,
    [...seriesParams(s), s.bucket, ...params],
  );
  const num = (r: Row) => ({ u: Number(r.u ?? 0), t: Number(r.t ?? 0) });
  const points = rows.filter((r) => r.timestamp !== null).sort((x, y) => String(x.timestamp).localeCompare(String(y.timestamp)));
  return { sum: num(rows.find((r) => r.timestamp === null) ?? {}), rows: points.map((r) => ({ timestamp: String(r.timestamp), ...num(r) })) };
}

/** One row of aggregates over every matching log. */
export async function logSummary(s: Scope, aggs: string, extraWhere = 'true'): Promise<Row> {
  const { where, params } = filterSql(s.filter);
  return (await run(s.em, `select ${aggs} from request_log l where ${where} and (${extraWhere})`, params))[0] ?? {};
}

/** Rows of a grouped query over the matching logs. */
export async function logGroups(s: Scope, select: string, groupBy: string, extra: { where?: string; params?: unknown[]; order: string; limit?: number; offset?: number }): Promise<Row[]> {
  const { where, params } = filterSql(s.filter);
  const paging = extra.limit !== undefined ? ` limit ${Number(extra.limit)} offset ${Number(extra.offset ?? 0)}` : '';
  return run(s.em, `select ${select} from request_log l where ${where} and (${extra.where ?? 'true'}) group by ${groupBy} order by ${extra.order}${paging}`, [
    ...params,
    ...(extra.params ?? []),
  ]);
}

export async function countGroups(s: Scope, groupBy: string, extra: { where?: string; params?: unknown[] } = {}): Promise<number> {
  const { where, params } = filterSql(s.filter);
  const rows = await run(s.em, `select count(*) as n from (select 1 from request_log l where ${where} and (${extra.where ?? 'true'}) group by ${groupBy}) g`, [...params, ...(extra.params ?? [])]);
  return Number(rows[0]?.n ?? 0);
}

/**
 * Feedback of the workspace in the time range; with other log filters, only feedback whose
 * trace has a matching log (feedback links to its log by trace id).
 */
function feedbackWhere(s: Scope): { where: string; params: unknown[] } {
  const f = s.filter;
  const c = ['f.organisation_id = ?', 'f.created_at >= ?', 'f.created_at <= ?'];
  const p: unknown[] = [f.organisationId, f.time_of_generation_min, f.time_of_generation_max];
  if (f.workspaceIdResolved) (c.push('f.workspace_id = ?'), p.push(f.workspaceIdResolved));
  const { time_of_generation_min: _a, time_of_generation_max: _b, workspace_id: _c, workspace_slug: _d, organisationId, workspaceIdResolved, ...logOnly } = f;
  if (Object.values(logOnly).some((v) => v !== undefined)) {
    const inner = filterSql({ ...logOnly, organisationId, workspaceIdResolved });
    c.push(`exists (select 1 from request_log l where l.trace_id = f.trace_id and ${inner.where})`);
    p.push(...inner.params);
  }
  return { where: c.join(' and '), params: p };
}

export async function feedbackSeries(s: Scope, aggs: string): Promise<(Row & { timestamp: string })[]> {
  const { where, params } = feedbackWhere(s);
  return run(
    s.em,
    `with s as (${SERIES}),
          a as (select date_trunc(?, f.created_at at time zone 'UTC') as b, ${aggs} from feedback f where ${where} group by 1)
     select ${TS} as timestamp, a.* from s left join a on a.b = s.b order by s.b`,
    [...seriesParams(s), s.bucket, ...params],
  ) as Promise<(Row & { timestamp: string })[]>;
}

export async function feedbackQuery(s: Scope, select: string, tail = ''): Promise<Row[]> {
  const { where, params } = feedbackWhere(s);
  return run(s.em, `select ${select} from feedback f where ${where} ${tail}`, params);
}
