import type { RequestLogItem, LogObject } from '../../src/services/request-logs/request-log-view.ts';
import { getRequestLog, listRequestLogs, type RequestLogList } from '../../src/services/request-logs/read-request-logs.ts';
import { insertCustomLogs, type InsertedLogs } from '../../src/services/request-logs/write-request-logs.ts';
import { groupLogsByMetadata, listMetadataValues, type MetadataGroup, type MetadataValue } from '../../src/services/request-logs/log-metadata.ts';
import { builder } from '../builder.ts';
import { pageType } from './page.ts';

// Request logs (issue 9, item 1; control-plane-schemas 2.14). Field names follow REST.

const RequestLogRef = builder.objectRef<RequestLogItem>('RequestLog').implement({
  description: 'One logged request (list item: no headers or bodies; see requestLog for those).',
  fields: (t) => ({
    id: t.exposeID('id'),
    object: t.exposeString('object'),
    trace_id: t.exposeString('trace_id'),
    request_id: t.exposeString('request_id'),
    organisation_id: t.exposeString('organisation_id'),
    workspace_id: t.exposeString('workspace_id', { nullable: true }),
    workspace_slug: t.exposeString('workspace_slug', { nullable: true }),
    api_key_id: t.exposeString('api_key_id', { nullable: true }),
    user: t.exposeString('user', { nullable: true, description: 'The `_user` metadata value' }),
    metadata: t.expose('metadata', { type: 'JSON', nullable: true }),
    provider: t.exposeString('provider'),
    ai_model: t.exposeString('ai_model', { nullable: true }),
    endpoint: t.exposeString('endpoint'),
    method: t.exposeString('method'),
    request_url: t.exposeString('request_url', { nullable: true }),
    status: t.exposeInt('status'),
    is_success: t.exposeBoolean('is_success'),
    response_time: t.exposeInt('response_time', { description: 'Total latency, ms' }),
    upstream_response_time: t.exposeInt('upstream_response_time', { description: 'Upstream latency, ms' }),
    req_units: t.exposeInt('req_units'),
    res_units: t.exposeInt('res_units'),
    total_units: t.exposeInt('total_units'),
    cost: t.exposeFloat('cost', { description: 'Cents' }),
    cost_currency: t.exposeString('cost_currency'),
    cache_status: t.exposeString('cache_status', { nullable: true }),
    retry_count: t.exposeInt('retry_count'),
    target_path: t.exposeString('target_path', { nullable: true }),
    guardrail_verdicts: t.expose('guardrail_verdicts', { type: 'JSON', nullable: true }),
    is_stream: t.exposeBoolean('is_stream'),
    is_proxy: t.exposeBoolean('is_proxy'),
    mode: t.exposeString('mode', { nullable: true }),
    config: t.exposeString('config', { nullable: true }),
    virtual_key: t.exposeString('virtual_key', { nullable: true }),
    prompt_slug: t.exposeString('prompt_slug', { nullable: true }),
    span_id: t.exposeString('span_id', { nullable: true }),
    span_name: t.exposeString('span_name', { nullable: true }),
    error_code: t.exposeString('error_code', { nullable: true }),
    source: t.exposeString('source', { description: 'gateway | custom (POST /logs)' }),
    bodies_truncated: t.exposeBoolean('bodies_truncated'),
    created_at: t.exposeString('created_at'),
  }),
});

const RequestLogPageRef = builder.objectRef<RequestLogList>('RequestLogPage').implement({
  description: 'Newest first; pass next_cursor as `after` for the next page.',
  fields: (t) => ({
    object: t.exposeString('object'),
    data: t.field({ type: [RequestLogRef], resolve: (p) => p.data }),
    has_more: t.exposeBoolean('has_more'),
    next_cursor: t.exposeString('next_cursor', { nullable: true }),
  }),
});

const LogObjectRef = builder.objectRef<LogObject>('LogObject').implement({
  description: 'GET /logs/{logId}: request and response (headers with sensitive values hashed, bodies capped) and metrics.',
  fields: (t) => ({
    _id: t.exposeID('_id'),
    object: t.exposeString('object'),
    request: t.expose('request', { type: 'JSON' }),
    response: t.expose('response', { type: 'JSON' }),
    organisation_id: t.exposeString('organisation_id'),
    workspace_id: t.exposeString('workspace_id', { nullable: true }),
    created_at: t.exposeString('created_at'),
    metrics: t.expose('metrics', { type: 'JSON' }),
    finalUntransformedRequest: t.expose('finalUntransformedRequest', { type: 'JSON', nullable: true }),
    transformedRequest: t.expose('transformedRequest', { type: 'JSON', nullable: true }),
    originalResponse: t.expose('originalResponse', { type: 'JSON', nullable: true }),
  }),
});

const InsertedLogsRef = builder.objectRef<InsertedLogs>('InsertedLogs').implement({
  fields: (t) => ({ stored: t.exposeInt('stored'), ids: t.exposeStringList('ids') }),
});

const MetadataValueRef = builder.objectRef<MetadataValue>('LogMetadataValue').implement({
  fields: (t) => ({ value: t.exposeString('value'), count: t.exposeInt('count'), last_seen: t.exposeString('last_seen') }),
});
const MetadataGroupRef = builder.objectRef<MetadataGroup>('LogMetadataGroup').implement({
  fields: (t) => ({
    metadata_value: t.exposeString('metadata_value'),
    requests: t.exposeInt('requests'),
    errors: t.exposeInt('errors'),
    cost: t.exposeFloat('cost'),
    total_units: t.exposeInt('total_units'),
    avg_response_time: t.exposeInt('avg_response_time'),
    first_seen: t.exposeString('first_seen'),
    last_seen: t.exposeString('last_seen'),
  }),
});
const MetadataValuePageRef = pageType('LogMetadataValuePage', MetadataValueRef);
const MetadataGroupPageRef = pageType('LogMetadataGroupPage', MetadataGroupRef);

builder.queryFields((t) => ({
  logMetadataValues: t.field({
    type: MetadataValuePageRef,
    description: 'GET /logs/metadata/{metadataKey} (draft): distinct values of a metadata key',
    args: { key: t.arg.string({ required: true }), params: t.arg({ type: 'JSON', description: 'GET /logs filters plus current_page, page_size' }) },
    resolve: (_, a, ctx) => listMetadataValues(ctx.em, ctx.actor, a.key, a.params ?? {}),
  }),
  logMetadataGroups: t.field({
    type: MetadataGroupPageRef,
    description: 'GET /logs/groups/metadata/{metadataKey} (draft): logs grouped by a metadata value',
    args: { key: t.arg.string({ required: true }), params: t.arg({ type: 'JSON' }) },
    resolve: (_, a, ctx) => groupLogsByMetadata(ctx.em, ctx.actor, a.key, a.params ?? {}),
  }),
  requestLogs: t.field({
    type: RequestLogPageRef,
    args: {
      filters: t.arg({ type: 'JSON', description: 'The filter query parameters of GET /logs (api-catalogue §3.4 names), as an object' }),
      limit: t.arg.int({ description: '1–500, default 50' }),
      after: t.arg.string({ description: 'A next_cursor' }),
    },
    resolve: (_, a, ctx) => listRequestLogs(ctx.em, ctx.actor, { filters: a.filters ?? {}, limit: a.limit ?? undefined, after: a.after ?? undefined }),
  }),
  requestLog: t.field({
    type: LogObjectRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => getRequestLog(ctx.em, ctx.actor, String(a.id)),
  }),
}));

builder.mutationFields((t) => ({
  insertLogs: t.field({
    type: InsertedLogsRef,
    errors: { directResult: true },
    args: {
      logs: t.arg({ type: 'JSON', required: true, description: 'One CustomLog or an array of them' }),
      workspace_id: t.arg.string({ description: 'Organisation keys: the workspace (default: the default workspace)' }),
    },
    resolve: (_, a, ctx) => insertCustomLogs(ctx.em, ctx.actor, ctx.meta, a.logs, a.workspace_id ?? null),
  }),
}));
