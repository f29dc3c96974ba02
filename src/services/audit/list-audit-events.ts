import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { forbidden } from '../../domain/errors.ts';
import { parseWith } from '../../domain/validation.ts';
import { AuditEventSchema } from '../../persistence/entities/index.ts';
import type { AuditEvent } from '../../persistence/entities/audit-event.ts';
import type { Actor } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { pageWindow } from '../paging.ts';

// GET /audit-logs (control-plane-schemas 2.16): a time window and the organisation are required.
const dateTime = z.iso.datetime({ offset: true, message: 'must be an ISO-8601 date-time' });
export const auditLogQuerySchema = z
  .strictObject({
    start_time: dateTime,
    end_time: dateTime,
    organisation_id: z.uuid(),
    method: z.enum(['POST', 'PUT', 'DELETE']).optional(),
    uri: z.string().min(1).max(2048).optional(),
    request_id: z.string().min(1).max(255).optional(),
    user_id: z.string().min(1).max(255).optional(),
    user_type: z.enum(['user', 'api_key', 'system']).optional(),
    workspace_id: z.uuid().optional(),
    response_status_code: z.number().int().min(100).max(599).optional(),
    resource_type: z.string().min(1).max(64).optional(),
    action: z.string().min(1).max(128).optional(),
    client_ip: z.string().min(1).max(64).optional(),
    country: z.string().min(2).max(2).optional(),
    current_page: z.number().int().min(0).optional(),
    page_size: z.number().int().min(0).max(100).optional(),
  })
  .superRefine((v, ctx) => {
    if (Date.parse(v.end_time) < Date.parse(v.start_time)) ctx.addIssue({ code: 'custom', path: ['end_time'], message: 'must not be before start_time' });
  });

export interface AuditRecord {
  id: string;
  timestamp: string;
  method: string | null;
  uri: string | null;
  request_id: string | null;
  request_body: string;
  query_params: string;
  request_headers: string;
  user_id: string | null;
  user_type: 'user' | 'api_key' | 'system';
  organisation_id: string;
  workspace_id: string | null;
  response_status_code: number;
  resource_type: string;
  resource_id: string | null;
  action: string;
  client_ip: string | null;
  country: string | null;
}

export interface AuditPage {
  object: 'list';
  total: number;
  records: AuditRecord[];
}

function queryOf(uri: string | null): Record<string, string> {
  if (!uri) return {};
  const q = uri.indexOf('?');
  return q < 0 ? {} : Object.fromEntries(new URLSearchParams(uri.slice(q + 1)));
}

export function toAuditRecord(e: AuditEvent): AuditRecord {
  const details = e.requestDetails ?? {};
  const userType = e.actorType === 'system' ? 'system' : e.userId ? 'user' : 'api_key';
  return {
    id: e.id,
    timestamp: e.createdAt.toISOString(),
    method: e.method ?? null,
    uri: e.uri ?? null,
    request_id: (details.request_id as string | undefined) ?? null,
    request_body: JSON.stringify(details),
    query_params: JSON.stringify(queryOf(e.uri ?? null)),
    request_headers: JSON.stringify(e.userAgent ? { 'user-agent': e.userAgent } : {}),
    user_id: userType === 'user' ? (e.userId ?? null) : (e.actorId ?? null),
    user_type: userType,
    organisation_id: e.organisationId,
    workspace_id: e.workspaceId ?? null,
    response_status_code: e.responseStatusCode,
    resource_type: e.targetType,
    resource_id: e.targetId ?? null,
    action: e.action,
    client_ip: e.ip ?? null,
    country: null,
  };
}

/** The audit trail is read-only here and everywhere: records are written with their change, never edited. */
export async function listAuditEvents(em: EntityManager, actor: Actor, raw: unknown): Promise<AuditPage> {
  authorize(actor, 'audit_logs.list');
  const q = parseWith(auditLogQuerySchema, raw);
  if (q.organisation_id !== actor.organisationId) throw forbidden('organisation_id is not the organisation of the API key.');
  const where: Record<string, unknown> = {
    organisationId: q.organisation_id,
    createdAt: { $gte: new Date(q.start_time), $lte: new Date(q.end_time) },
  };
  if (q.method) where.method = q.method;
  if (q.uri) where.uri = q.uri;
  if (q.request_id) where.requestDetails = { request_id: q.request_id };
  if (q.user_type === 'system') where.actorType = 'system';
  if (q.user_type === 'user') where.userId = { $ne: null };
  if (q.user_type === 'api_key') Object.assign(where, { actorType: 'api_key', userId: null });
  if (q.user_id) where.$or = [{ userId: q.user_id }, { actorId: q.user_id }];
  if (q.workspace_id) where.workspaceId = q.workspace_id;
  if (q.response_status_code) where.responseStatusCode = q.response_status_code;
  if (q.resource_type) where.targetType = q.resource_type;
  if (q.action) where.action = q.action;
  if (q.client_ip) where.ip = q.client_ip;
  if (q.country) where.id = null; // country is not recorded: a country filter matches nothing
  const window = pageWindow({ currentPage: q.current_page, pageSize: q.page_size === 0 ? null : q.page_size }, { defaultSize: 100, maxSize: 100 });
  const [rows, total] = await em.findAndCount(AuditEventSchema, where, { orderBy: { createdAt: 'desc', id: 'asc' }, ...window });
  return { object: 'list', total, records: rows.map(toAuditRecord) };
}
