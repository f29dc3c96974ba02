import type { EntityManager } from '@mikro-orm/postgresql';
import { SENSITIVE_HEADERS_HEADER, sensitiveHeaderNames, userOf } from '../../domain/log-fields.ts';
import type { ReportAck, UsageAlert, UsageBatch, UsageRecord } from '../../domain/usage-record.ts';
import { insertLogRows, type LogRow } from '../request-logs/insert-logs.ts';
import { capBody, sanitizeHeaders } from '../request-logs/log-shaping.ts';
import { defaultAlertSender, type AlertSender } from './alert-sender.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const uuidOrNull = (v: string) => (UUID.test(v) ? v : null);

function parseObject(json: string | undefined): Record<string, unknown> | null {
  if (!json) return null;
  try {
    const v = JSON.parse(json);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

function parseArray(json: string | undefined): unknown[] | null {
  if (!json) return null;
  try {
    const v = JSON.parse(json);
    return Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

const text = (v: string | undefined, max: number): string | null => (v ? v.slice(0, max) : null);
// Unknown pricing stores no cost (null), not a zero that reads as free (issue 8 item 4).
const finite = (v: number | undefined): number | null => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null);

function toRow(r: UsageRecord): LogRow {
  const metadata = parseObject(r.metadata_json);
  const reqBody = capBody(r.request_body);
  const resBody = capBody(r.response_body);
  const requestHeaders = sanitizeHeaders(parseObject(r.request_headers_json));
  // Names the request marks sensitive are hashed in the response's headers too.
  const rawRequestHeaders = parseObject(r.request_headers_json) ?? {};
  const marked = Object.entries(rawRequestHeaders).find(([k]) => k.toLowerCase() === SENSITIVE_HEADERS_HEADER)?.[1];
  const sensitive = sensitiveHeaderNames(typeof marked === 'string' ? marked : Array.isArray(marked) ? JSON.stringify(marked) : null);
  return {
    id: crypto.randomUUID(),
    idempotency_id: r.idempotency_id.slice(0, 128),
    request_id: r.request_id.slice(0, 64),
    attempt: r.attempt,
    trace_id: r.trace_id.slice(0, 255),
    organisation_id: r.organisation_id,
    workspace_id: uuidOrNull(r.workspace_id),
    api_key_id: uuidOrNull(r.api_key_id),
    provider: r.provider.slice(0, 64),
    model: r.model ? r.model.slice(0, 255) : null,
    endpoint: r.endpoint.slice(0, 64),
    method: r.method.slice(0, 16),
    status: r.status,
    latency_ms: r.latency_ms,
    upstream_latency_ms: r.upstream_latency_ms,
    prompt_tokens: r.prompt_tokens,
    completion_tokens: r.completion_tokens,
    total_tokens: r.total_tokens,
    is_stream: r.is_stream,
    error_code: r.error_code || null,
    metadata,
    started_at: new Date(r.started_at_ms),
    user_id: text(r.user, 255) ?? userOf(metadata),
    cached_prompt_tokens: typeof r.cached_prompt_tokens === 'number' && Number.isFinite(r.cached_prompt_tokens) ? Math.max(0, Math.trunc(r.cached_prompt_tokens)) : null,
    cost: finite(r.cost),
    cost_currency: text(r.cost_currency, 8) ?? 'USD',
    cache_status: text(r.cache_status, 32),
    retry_count: Math.max(0, Math.trunc(r.retry_count ?? 0)),
    target_path: text(r.target_path, 255),
    guardrail_verdicts: parseArray(r.guardrail_verdicts_json),
    request_url: r.request_url || null,
    request_headers: requestHeaders,
    request_body: reqBody.text,
    response_headers: sanitizeHeaders(parseObject(r.response_headers_json), sensitive),
    response_body: resBody.text,
    bodies_truncated: reqBody.truncated || resBody.truncated,
    is_proxy: r.is_proxy ?? false,
    config_id: text(r.config_id, 255),
    virtual_key: text(r.virtual_key, 255),
    prompt_slug: text(r.prompt_slug, 255),
    span_id: text(r.span_id, 255),
    span_name: text(r.span_name, 255),
    mode: text(r.mode, 32),
    source: 'gateway',
  };
}

function parseAlerts(json: string | undefined): UsageAlert[] {
  if (!json) return [];
  try {
    const v = JSON.parse(json);
    return Array.isArray(v) ? v.filter((a) => a && typeof a === 'object' && typeof a.id === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * Issue 8 item 3: notifies the alerts of newly stored records (a resent batch notifies nothing
 * twice). Key alerts go to the key's alert_emails. A failing sender never fails the batch.
 */
async function notifyAlerts(em: EntityManager, records: UsageRecord[], sender: AlertSender): Promise<void> {
  const withAlerts = records.map((r) => ({ r, alerts: parseAlerts(r.alerts_json) })).filter((x) => x.alerts.length);
  if (!withAlerts.length) return;
  const keyIds = [...new Set(withAlerts.flatMap((x) => x.alerts.filter((a) => a.scope === 'api_key').map((a) => a.id)).filter((id) => UUID.test(id)))];
  const emails = new Map<string, string[]>();
  if (keyIds.length) {
    const rows: { id: string; alert_emails: unknown }[] = await em.getConnection().execute(`select id, alert_emails from api_key where id in (${keyIds.map(() => '?').join(', ')})`, keyIds);
    for (const row of rows) emails.set(row.id, Array.isArray(row.alert_emails) ? row.alert_emails.filter((e): e is string => typeof e === 'string') : []);
  }
  for (const { r, alerts } of withAlerts) {
    for (const alert of alerts) {
      await sender
        .send({
          to: alert.scope === 'api_key' ? (emails.get(alert.id) ?? []) : [],
          organisation_id: r.organisation_id,
          workspace_id: uuidOrNull(r.workspace_id),
          api_key_id: uuidOrNull(r.api_key_id),
          request_id: r.request_id,
          alert,
        })
        .catch(() => {});
    }
  }
}

/**
 * Stores a batch in one statement (insert-logs.ts); the ack counts the records newly stored,
 * already stored (a resend after a reconnect, or a record repeated within the batch), and
 * malformed. ARCHITECTURE.md: Report — nothing lost, nothing counted twice. Usage-limit alerts
 * (issue 8 item 3) are sent for newly stored records only, so a resent batch notifies nothing twice.
 */
export async function storeUsageBatch(em: EntityManager, batch: UsageBatch, alerts: AlertSender = defaultAlertSender()): Promise<ReportAck> {
  const valid = batch.records.filter((r) => r.idempotency_id && UUID.test(r.organisation_id) && Number.isFinite(r.started_at_ms));
  const rejected = batch.records.length - valid.length;
  if (!valid.length) return { batch_id: batch.batch_id, stored: 0, duplicates: 0, rejected };
  const rows = valid.map(toRow);
  const { stored, fresh } = await insertLogRows(em, rows);
  if (valid.some((r) => r.alerts_json)) {
    // The rows are stored: a failing lookup or sender must not fail the batch (it would be resent).
    const freshRecords = valid.filter((r, i) => fresh.delete(rows[i]!.idempotency_id));
    await notifyAlerts(em, freshRecords, alerts).catch(() => {});
  }
  return { batch_id: batch.batch_id, stored, duplicates: valid.length - stored, rejected };
}
