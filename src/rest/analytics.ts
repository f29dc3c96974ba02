import { GRAPHS } from '../services/analytics/read-analytics.ts';
import { fieldOrError, json } from './graphql-result.ts';
import type { RestContext, RestRoute } from './types.ts';

// Analytics (api-catalogue "Analytics > Graphs (17)", "Summary (1)", "Groups (3)"): the query
// parameters pass through as one object (the service names a bad one in its 400).

const GRAPH = `query AnalyticsGraph($graph: String!, $params: JSON!) { analyticsGraph(graph: $graph, params: $params) { summary data_points object } }`;
const SUMMARY = `query AnalyticsCacheSummary($params: JSON!) { analyticsCacheSummary(params: $params) { summary object } }`;
const GROUP = `query AnalyticsGroup($group: String!, $metadata_key: String, $params: JSON!) {
  analyticsGroup(group: $group, metadata_key: $metadata_key, params: $params) { object total data }
}`;

/** Declared by the spec's components but used by no operation: accepted and ignored. */
const IGNORED = new Set(['order_by', 'order_by_type']);

function paramsOf(q: URLSearchParams): Record<string, string> {
  return Object.fromEntries([...q].filter(([k, v]) => !IGNORED.has(k) && v !== ''));
}

const graph = (name: string) => async (ctx: RestContext): Promise<Response> => {
  const out = fieldOrError<unknown>(await ctx.run(GRAPH, { graph: name, params: paramsOf(ctx.query) }, ctx.request, ctx.ip), 'analyticsGraph');
  return out.ok ? json(out.value) : out.response;
};

async function summary(ctx: RestContext): Promise<Response> {
  const out = fieldOrError<unknown>(await ctx.run(SUMMARY, { params: paramsOf(ctx.query) }, ctx.request, ctx.ip), 'analyticsCacheSummary');
  return out.ok ? json(out.value) : out.response;
}

const group = (name: string) => async (ctx: RestContext): Promise<Response> => {
  const out = fieldOrError<unknown>(
    await ctx.run(GROUP, { group: name, metadata_key: ctx.params.metadataKey, params: paramsOf(ctx.query) }, ctx.request, ctx.ip),
    'analyticsGroup',
  );
  return out.ok ? json(out.value) : out.response;
};

export const analyticsRoutes: RestRoute[] = [
  ...GRAPHS.map((name) => ({ method: 'GET', path: `/v1/analytics/graphs/${name}`, handler: graph(name) })),
  { method: 'GET', path: '/v1/analytics/summary/cache', handler: summary },
  { method: 'GET', path: '/v1/analytics/groups/users', handler: group('users') },
  { method: 'GET', path: '/v1/analytics/groups/ai-models', handler: group('ai-models') },
  { method: 'GET', path: '/v1/analytics/groups/metadata/:metadataKey', handler: group('metadata') },
];
