import { listAuditEvents, type AuditPage, type AuditRecord } from '../../src/services/audit/list-audit-events.ts';
import { builder } from '../builder.ts';

// Read-only by design: the schema has no mutation that edits or removes an audit record.

const AuditRecordRef = builder.objectRef<AuditRecord>('AuditRecord').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    timestamp: t.expose('timestamp', { type: 'DateTime' }),
    method: t.exposeString('method', { nullable: true }),
    uri: t.exposeString('uri', { nullable: true }),
    request_id: t.exposeString('request_id', { nullable: true }),
    request_body: t.exposeString('request_body'),
    query_params: t.exposeString('query_params'),
    request_headers: t.exposeString('request_headers'),
    user_id: t.exposeString('user_id', { nullable: true }),
    user_type: t.exposeString('user_type'),
    organisation_id: t.exposeString('organisation_id'),
    workspace_id: t.exposeString('workspace_id', { nullable: true }),
    response_status_code: t.exposeInt('response_status_code'),
    resource_type: t.exposeString('resource_type'),
    resource_id: t.exposeString('resource_id', { nullable: true }),
    action: t.exposeString('action'),
    client_ip: t.exposeString('client_ip', { nullable: true }),
    country: t.exposeString('country', { nullable: true }),
  }),
});

const AuditPageRef = builder.objectRef<AuditPage>('AuditLogPage').implement({
  fields: (t) => ({
    object: t.exposeString('object'),
    total: t.exposeInt('total'),
    records: t.field({ type: [AuditRecordRef], resolve: (p) => p.records }),
  }),
});

const AuditLogFilter = builder.inputType('AuditLogFilter', {
  fields: (t) => ({
    start_time: t.string({ required: true }),
    end_time: t.string({ required: true }),
    organisation_id: t.string({ required: true }),
    method: t.string(),
    uri: t.string(),
    request_id: t.string(),
    user_id: t.string(),
    user_type: t.string(),
    workspace_id: t.string(),
    response_status_code: t.int(),
    resource_type: t.string(),
    action: t.string(),
    client_ip: t.string(),
    country: t.string(),
    current_page: t.int(),
    page_size: t.int(),
  }),
});

builder.queryField('auditLogs', (t) =>
  t.field({
    type: AuditPageRef,
    args: { filter: t.arg({ type: AuditLogFilter, required: true }) },
    resolve: (_, { filter }, ctx) =>
      listAuditEvents(ctx.em, ctx.actor, Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined && v !== null))),
  }),
);
