import {
  analyticsGraph,
  cacheSummary,
  groupByMetadata,
  groupByModel,
  groupByUser,
  GRAPHS,
  type AnalyticsGraph,
  type CacheSummary,
  type GroupItem,
} from '../../src/services/analytics/read-analytics.ts';
import { invalidParameter } from '../../src/domain/errors.ts';
import type { Page } from '../../src/services/paging.ts';
import { builder } from '../builder.ts';

// Analytics (control-plane-schemas 2.15). The parameters are the REST query parameters
// (api-catalogue §3.4, plus bucket, current_page, page_size) as one object; the shapes of
// summary and data points differ per graph, so they are JSON here.

const AnalyticsGraphRef = builder.objectRef<AnalyticsGraph>('AnalyticsGraph').implement({
  fields: (t) => ({
    summary: t.expose('summary', { type: 'JSON' }),
    data_points: t.expose('data_points', { type: 'JSON' }),
    object: t.exposeString('object'),
  }),
});

const AnalyticsSummaryRef = builder.objectRef<CacheSummary>('AnalyticsSummary').implement({
  fields: (t) => ({ summary: t.expose('summary', { type: 'JSON' }), object: t.exposeString('object') }),
});

const AnalyticsGroupPageRef = builder.objectRef<Page<GroupItem>>('AnalyticsGroupPage').implement({
  fields: (t) => ({ object: t.exposeString('object'), total: t.exposeInt('total'), data: t.expose('data', { type: 'JSON' }) }),
});

const params = (t: any) => t.arg({ type: 'JSON', required: true, description: 'time_of_generation_min/max (required), workspace_slug, filters, bucket' });

builder.queryFields((t) => ({
  analyticsGraph: t.field({
    type: AnalyticsGraphRef,
    description: `One of: ${GRAPHS.join(', ')}`,
    args: { graph: t.arg.string({ required: true }), params: params(t) },
    resolve: (_, a, ctx) => analyticsGraph(ctx.em, ctx.actor, a.graph, a.params),
  }),
  analyticsCacheSummary: t.field({
    type: AnalyticsSummaryRef,
    args: { params: params(t) },
    resolve: (_, a, ctx) => cacheSummary(ctx.em, ctx.actor, a.params),
  }),
  analyticsGroup: t.field({
    type: AnalyticsGroupPageRef,
    description: 'users | ai-models | metadata (with metadata_key)',
    args: { group: t.arg.string({ required: true }), metadata_key: t.arg.string(), params: params(t) },
    resolve: (_, a, ctx) => {
      if (a.group === 'users') return groupByUser(ctx.em, ctx.actor, a.params);
      if (a.group === 'ai-models') return groupByModel(ctx.em, ctx.actor, a.params);
      if (a.group === 'metadata' && a.metadata_key) return groupByMetadata(ctx.em, ctx.actor, a.metadata_key, a.params);
      throw invalidParameter('group', 'group: users, ai-models, or metadata with metadata_key');
    },
  }),
}));
