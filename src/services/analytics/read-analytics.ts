// Analytics (issue 9, item 3; api-catalogue "Analytics > Graphs/Summary/Groups";
// control-plane-schemas 2.15), computed from the request logs and feedback.
//
// Definitions where the spec gives only names: an error is a response with status ≥ 400; a
// rescued request succeeded after retries (retry_count > 0) or from a fallback target (mode
// fallback, target other than targets[0]); cache hits are cache_status HIT (simple) and
// SEMANTIC HIT; the savings of a hit are the cost its log records; weighted feedback is
// value × weight. Numbers the spec declares integer are rounded.
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../domain/errors.ts';
import type { Actor } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import type { Page } from '../paging.ts';
import { filterSql, resolveFilterWorkspace } from '../request-logs/log-filters.ts';
import { parseAnalyticsParams } from './analytics-input.ts';
import { countGroups, feedbackQuery, feedbackSeries, logGroups, logSeries, logSeriesAndSummary, logSummary, userSeries, type Scope } from './analytics-sql.ts';

export const GRAPHS = [
  'requests', 'cost', 'latency', 'tokens', 'users', 'users/requests', 'errors', 'errors/rate', 'errors/stacks', 'errors/status-codes',
  'requests/rescued', 'cache/hit-rate', 'cache/latency', 'feedbacks', 'feedbacks/scores', 'feedbacks/weighted', 'feedbacks/ai-models',
] as const;
export type GraphName = (typeof GRAPHS)[number];

export interface AnalyticsGraph {
  summary: Record<string, unknown>;
  data_points: Record<string, unknown>[];
  object: 'analytics-graph';
}

const int = (v: unknown): number => Math.round(Number(v ?? 0)) || 0;
const pct = (part: unknown, whole: unknown): number => (Number(whole) > 0 ? int((Number(part) / Number(whole)) * 100) : 0);

/** Workspace keys: their own workspace (workspace_slug ignored); organisation keys: workspace_slug or the default workspace. */
async function scopeOf(em: EntityManager, actor: Actor, input: unknown): Promise<Scope & { currentPage: number; pageSize: number }> {
  authorize(actor, 'analytics.view');
  const p = parseAnalyticsParams(input);
  const workspaceIdResolved = await resolveFilterWorkspace(em, actor, p.filters, { ignoreForWorkspaceKeys: true, fallback: 'default' });
  return { em, bucket: p.bucket, filter: { ...p.filters, organisationId: actor.organisationId, workspaceIdResolved }, currentPage: p.currentPage, pageSize: p.pageSize };
}

const ERROR = 'l.status >= 400';
const HIT = `l.cache_status in ('HIT', 'SEMANTIC HIT')`;
const SUCCESS = 'l.status between 200 and 299';
const FALLBACK = `l.mode = 'fallback' and l.target_path is not null and l.target_path <> 'targets[0]'`;
const PERCENTILES = `avg(l.latency_ms) as avg, percentile_cont(0.5) within group (order by l.latency_ms) as p50,
  percentile_cont(0.9) within group (order by l.latency_ms) as p90, percentile_cont(0.99) within group (order by l.latency_ms) as p99`;

/** The bucket a log falls in, as the series' timestamps are written (UTC, ISO-8601). The bucket is one of BUCKETS. */
const BUCKET_TS = (s: Scope) => `to_char(date_trunc('${s.bucket}', l.started_at at time zone 'UTC'), 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;

function listAt<T>(m: Map<string, T[]>, k: string): T[] {
  let v = m.get(k);
  if (!v) m.set(k, (v = []));
  return v;
}

type Graph = (s: Scope) => Promise<Omit<AnalyticsGraph, 'object'>>;

const graphs: Record<GraphName, Graph> = {
  requests: async (s) => {
    const { sum, rows } = await logSeriesAndSummary(s, 'count(*) as n');
    return { summary: { total: int(sum.n) }, data_points: rows.map((r) => ({ timestamp: r.timestamp, total: int(r.n) })) };
  },
  cost: async (s) => {
    const { sum, rows } = await logSeriesAndSummary(s, 'sum(l.cost) as t, avg(l.cost) as a');
    return { summary: { total: int(sum.t), avg: int(sum.a) }, data_points: rows.map((r) => ({ timestamp: r.timestamp, total: int(r.t), avg: int(r.a) })) };
  },
  latency: async (s) => {
    const { sum, rows } = await logSeriesAndSummary(s, PERCENTILES);
    const pick = (r: Record<string, unknown>) => ({ avg: int(r.avg), p50: int(r.p50), p90: int(r.p90), p99: int(r.p99) });
    return { summary: pick(sum), data_points: rows.map((r) => ({ timestamp: r.timestamp, ...pick(r) })) };
  },
  tokens: async (s) => {
    const { sum, rows } = await logSeriesAndSummary(s, 'sum(l.total_tokens) as t, avg(l.total_tokens) as a');
    return { summary: { total: int(sum.t), avg: int(sum.a) }, data_points: rows.map((r) => ({ timestamp: r.timestamp, total: int(r.t), avg: int(r.a) })) };
  },
  users: async (s) => {
    const { sum, rows } = await userSeries(s);
    return { summary: { total: sum.u }, data_points: rows.map((r) => ({ timestamp: r.timestamp, total: r.u })) };
  },
  'users/requests': async (s) => {
    const { sum, rows } = await userSeries(s);
    const avg = (x: { u: number; t: number }) => (x.u > 0 ? int(x.t / x.u) : 0);
    return { summary: { total: sum.t, unique: sum.u, avg: avg(sum) }, data_points: rows.map((r) => ({ timestamp: r.timestamp, avg: avg(r) })) };
  },
  errors: async (s) => {
    const { sum, rows } = await logSeriesAndSummary(s, 'count(*) as n', ERROR);
    return { summary: { total: int(sum.n) }, data_points: rows.map((r) => ({ timestamp: r.timestamp, total: int(r.n) })) };
  },
  'errors/rate': async (s) => {
    const aggs = `count(*) filter (where ${ERROR}) as e, count(*) as t`;
    const { sum, rows } = await logSeriesAndSummary(s, aggs);
    return { summary: { rate: pct(sum.e, sum.t) }, data_points: rows.map((r) => ({ timestamp: r.timestamp, rate: pct(r.e, r.t) })) };
  },
  'errors/stacks': async (s) => {
    const rows = await logGroups(s, `${BUCKET_TS(s)} as ts, l.status, count(*) as n`, '1, 2', { where: ERROR, order: '1, 2' });
    const byBucket = new Map<string, { response_status_code: number; count: number }[]>();
    for (const r of rows) listAt(byBucket, String(r.ts)).push({ response_status_code: int(r.status), count: int(r.n) });
    const points = (await logSeries(s, 'count(*) as n', ERROR)).map((r) => ({ timestamp: r.timestamp, stats: byBucket.get(r.timestamp) ?? [] }));
    return { summary: { total: rows.reduce((t, r) => t + int(r.n), 0) }, data_points: points };
  },
  'errors/status-codes': async (s) => {
    const rows = await logGroups(s, 'l.status, count(*) as n', 'l.status', { where: ERROR, order: 'l.status' });
    return {
      summary: { total_errors: rows.reduce((t, r) => t + int(r.n), 0), unique_error_codes: rows.length },
      data_points: rows.map((r) => ({ status_code: int(r.status), count: int(r.n) })),
    };
  },
  'requests/rescued': async (s) => {
    const retried = `${SUCCESS} and l.retry_count > 0`;
    const rows = await logGroups(s, `${BUCKET_TS(s)} as ts, l.retry_count as rc, count(*) as n`, '1, 2', { where: retried, order: '1, 2' });
    const byBucket = new Map<string, { retry_success_count: number; count: number }[]>();
    for (const r of rows) listAt(byBucket, String(r.ts)).push({ retry_success_count: int(r.rc), count: int(r.n) });
    const aggs = `count(*) filter (where ${retried}) as r, count(*) filter (where ${SUCCESS} and ${FALLBACK}) as f`;
    // Only retried or fallback logs can count: the scan uses their partial indexes.
    const { sum, rows: series } = await logSeriesAndSummary(s, aggs, `l.retry_count > 0 or l.mode = 'fallback'`);
    return {
      summary: { retry: int(sum.r), fallback: int(sum.f) },
      data_points: series.map((r) => ({ timestamp: r.timestamp, retry: byBucket.get(r.timestamp) ?? [], fallback: int(r.f) })),
    };
  },
  'cache/hit-rate': async (s) => {
    const aggs = `count(*) filter (where l.cache_status = 'HIT') as sh, count(*) filter (where l.cache_status = 'SEMANTIC HIT') as mh, count(*) as t,
      coalesce(sum(l.cost) filter (where l.cache_status = 'HIT'), 0) as ss, coalesce(sum(l.cost) filter (where l.cache_status = 'SEMANTIC HIT'), 0) as ms`;
    const { sum, rows } = await logSeriesAndSummary(s, aggs);
    let simple = 0;
    let semantic = 0;
    const points = rows.map((r) => {
      simple += Number(r.ss ?? 0);
      semantic += Number(r.ms ?? 0);
      return {
        timestamp: r.timestamp, simple_hits: int(r.sh), semantic_hits: int(r.mh), rate: pct(Number(r.sh ?? 0) + Number(r.mh ?? 0), r.t),
        cumulative_simple_cache_savings: int(simple), cumulative_semantic_cache_savings: int(semantic),
      };
    });
    return { summary: { total: int(Number(sum.sh) + Number(sum.mh)), rate: pct(Number(sum.sh) + Number(sum.mh), sum.t) }, data_points: points };
  },
  'cache/latency': async (s) => ({
    summary: {},
    data_points: (await logSeries(s, 'avg(l.latency_ms) as a', HIT)).map((r) => ({ timestamp: r.timestamp, avg: int(r.a) })),
  }),
  feedbacks: async (s) => ({
    summary: { total: int((await feedbackQuery(s, 'count(*) as n'))[0]?.n) },
    data_points: (await feedbackSeries(s, 'count(*) as n')).map((r) => ({ timestamp: r.timestamp, total: int(r.n) })),
  }),
  'feedbacks/scores': async (s) => {
    const rows = await feedbackQuery(s, 'f.value as score, count(*) as n', 'group by f.value order by f.value');
    return { summary: { total: rows.reduce((t, r) => t + int(r.n), 0) }, data_points: rows.map((r) => ({ score: int(r.score), total: int(r.n) })) };
  },
  'feedbacks/weighted': async (s) => ({
    summary: { avg: int((await feedbackQuery(s, 'avg(f.value * f.weight) as a'))[0]?.a) },
    data_points: (await feedbackSeries(s, 'avg(f.value * f.weight) as a')).map((r) => ({ timestamp: r.timestamp, avg: int(r.a) })),
  }),
  'feedbacks/ai-models': async (s) => ({ summary: {}, data_points: await feedbackModels(s) }),
};

async function feedbackModels(s: Scope): Promise<Record<string, unknown>[]> {
  const rows = await feedbackQuery(
    s,
    `(select l.model from request_log l where l.trace_id = f.trace_id and l.workspace_id = f.workspace_id and l.model is not null limit 1) as ai_model, f.value * f.weight as w`,
  );
  const by = new Map<string, { n: number; sum: number }>();
  for (const r of rows) {
    if (r.ai_model === null || r.ai_model === undefined) continue;
    const g = by.get(String(r.ai_model)) ?? { n: 0, sum: 0 };
    g.n++;
    g.sum += Number(r.w);
    by.set(String(r.ai_model), g);
  }
  return [...by.entries()].sort((a, b) => b[1].n - a[1].n || a[0].localeCompare(b[0])).map(([ai_model, g]) => ({ ai_model, total: g.n, avg_weighted_feedback: int(g.sum / g.n) }));
}

export async function analyticsGraph(em: EntityManager, actor: Actor, graph: string, input: unknown): Promise<AnalyticsGraph> {
  const run = graphs[graph as GraphName];
  if (!run) throw new AppError(404, 'not_found_error', 'unknown_graph', `No analytics graph named ${graph}`, 'graph');
  const s = await scopeOf(em, actor, input);
  return { ...(await run(s)), object: 'analytics-graph' };
}

export interface CacheSummary {
  summary: { hits: number; avg_latency: number; total_requests: number; cache_speedup: number };
  object: 'analytics-summary';
}

/** summary/cache: hits, their average latency, all requests, and how much faster hits answer than misses (%). */
export async function cacheSummary(em: EntityManager, actor: Actor, input: unknown): Promise<CacheSummary> {
  const s = await scopeOf(em, actor, input);
  const r = await logSummary(s, `count(*) filter (where ${HIT}) as hits, avg(l.latency_ms) filter (where ${HIT}) as hl, avg(l.latency_ms) filter (where not (${HIT}) or l.cache_status is null) as ml, count(*) as t`);
  const miss = Number(r.ml ?? 0);
  const speedup = miss > 0 && r.hl !== null ? int(((miss - Number(r.hl)) / miss) * 100) : 0;
  return { summary: { hits: int(r.hits), avg_latency: int(r.hl), total_requests: int(r.t), cache_speedup: speedup }, object: 'analytics-summary' };
}

export type GroupItem = Record<string, unknown> & { object: 'analytics-group' };

/** groups/users: per `_user`, requests and cost (strings, as declared), most requests first. */
export async function groupByUser(em: EntityManager, actor: Actor, input: unknown): Promise<Page<GroupItem>> {
  const s = await scopeOf(em, actor, input);
  const where = 'l.user_id is not null';
  const rows = await logGroups(s, 'l.user_id as user, count(*) as n, sum(l.cost) as c', 'l.user_id', { where, order: 'count(*) desc, l.user_id', limit: s.pageSize, offset: s.currentPage * s.pageSize });
  return {
    object: 'list',
    total: await countGroups(s, 'l.user_id', { where }),
    data: rows.map((r) => ({ user: String(r.user), requests: String(int(r.n)), cost: String(Number(r.c ?? 0)), object: 'analytics-group' as const })),
  };
}

export async function groupByModel(em: EntityManager, actor: Actor, input: unknown): Promise<Page<GroupItem>> {
  const s = await scopeOf(em, actor, input);
  const where = 'l.model is not null';
  const rows = await logGroups(s, 'l.model as m, count(*) as n', 'l.model', { where, order: 'count(*) desc, l.model', limit: s.pageSize, offset: s.currentPage * s.pageSize });
  return { object: 'list', total: await countGroups(s, 'l.model', { where }), data: rows.map((r) => ({ ai_model: String(r.m), requests: int(r.n), object: 'analytics-group' as const })) };
}

/**
 * Per metadata value, with the weighted feedback of its requests: feedback is aggregated per
 * trace once (a hash join), not looked up per log.
 */
async function metadataGroups(s: Scope & { currentPage: number; pageSize: number }, k: string, where: string) {
  const { where: w, params } = filterSql(s.filter);
  const fbWhere = s.filter.workspaceIdResolved ? 'fb.organisation_id = ? and fb.workspace_id = ?' : 'fb.organisation_id = ?';
  const fbParams = s.filter.workspaceIdResolved ? [s.filter.organisationId, s.filter.workspaceIdResolved] : [s.filter.organisationId];
  return s.em.getConnection().execute<Record<string, unknown>[]>(
    `select l.metadata ->> ${k} as v, count(*) as n, sum(l.cost) as c, avg(l.total_tokens) as t, avg(fb.w) as wf, count(fb.w) as wn, max(l.started_at) as last_seen
       from request_log l
       left join (select fb.workspace_id, fb.trace_id, avg(fb.value * fb.weight) as w from feedback fb where ${fbWhere} group by 1, 2) fb
         on fb.workspace_id = l.workspace_id and fb.trace_id = l.trace_id
      where ${w} and ${where}
      group by 1 order by count(*) desc, 1 limit ${Number(s.pageSize)} offset ${Number(s.currentPage * s.pageSize)}`,
    [...fbParams, ...params],
  );
}

/** groups/metadata/{key}: per value of one metadata key (the key is a SQL literal: quotes doubled). */
export async function groupByMetadata(em: EntityManager, actor: Actor, key: string, input: unknown): Promise<Page<GroupItem>> {
  const s = await scopeOf(em, actor, input);
  const k = `'${key.replace(/'/g, "''")}'`;
  const where = `jsonb_exists(l.metadata, ${k})`;
  const rows = await metadataGroups(s, k, where);
  return {
    object: 'list',
    total: await countGroups(s, `l.metadata ->> ${k}`, { where }),
    data: rows.map((r) => ({
      metadata_value: String(r.v), requests: int(r.n), cost: Number(r.c ?? 0), avg_tokens: int(r.t), avg_weighted_feedback: r.wf === null ? null : Number(r.wf),
      requests_with_feedback: int(r.wn), last_seen: new Date(r.last_seen as string).toISOString(), object: 'analytics-group' as const,
    })),
  };
}
