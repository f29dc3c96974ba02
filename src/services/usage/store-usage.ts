import type { EntityManager } from '@mikro-orm/postgresql';
import type { ReportAck, UsageAlert, UsageBatch, UsageRecord } from '../../domain/usage-record.ts';
import { defaultAlertSender, type AlertSender } from './alert-sender.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const uuidOrNull = (v: string) => (UUID.test(v) ? v : null);

function parseMetadata(json: string): Record<string, unknown> | null {
  if (!json) return null;
  try {
    const v = JSON.parse(json);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

function toRow(r: UsageRecord) {
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
    metadata: parseMetadata(r.metadata_json),
    started_at: new Date(r.started_at_ms),
    cost_cents: typeof r.cost_cents === 'number' && Number.isFinite(r.cost_cents) ? r.cost_cents : null,
    cached_prompt_tokens: typeof r.cached_prompt_tokens === 'number' ? r.cached_prompt_tokens : null,
  };
}

// Every column toRow fills, and only those (the compiler checks both ways).
const COLUMN_SET: Record<keyof ReturnType<typeof toRow>, true> = {
  id: true, idempotency_id: true, request_id: true, attempt: true, trace_id: true, organisation_id: true, workspace_id: true,
  api_key_id: true, provider: true, model: true, endpoint: true, method: true, status: true, latency_ms: true,
  upstream_latency_ms: true, prompt_tokens: true, completion_tokens: true, total_tokens: true, is_stream: true,
  error_code: true, metadata: true, started_at: true, cost_cents: true, cached_prompt_tokens: true,
};
const COLUMNS = Object.keys(COLUMN_SET).join(', ');

/**
 * One statement per batch whatever its size: the rows travel as a single JSON parameter that
 * PostgreSQL expands into `request_log` rows (json_populate_recordset, typed by the table), instead of
 * 22 bind parameters per row. Ids already stored are skipped, so a batch resent after a reconnect is
 * counted once (ARCHITECTURE.md: Report); a record repeated within the batch is stored once too.
 */
const INSERT = `insert into request_log (${COLUMNS}) select ${COLUMNS} from json_populate_recordset(null::request_log, ?::json) on conflict (idempotency_id) do nothing returning idempotency_id`;

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

/** Stores a batch; the ack counts the records newly stored, already stored, and malformed. */
export async function storeUsageBatch(em: EntityManager, batch: UsageBatch, alerts: AlertSender = defaultAlertSender()): Promise<ReportAck> {
  const valid = batch.records.filter((r) => r.idempotency_id && UUID.test(r.organisation_id));
  const rejected = batch.records.length - valid.length;
  if (!valid.length) return { batch_id: batch.batch_id, stored: 0, duplicates: 0, rejected };
  const result: { rowCount: number | null; rows?: { idempotency_id: string }[] } = await em.getConnection().getKnex().raw(INSERT, [JSON.stringify(valid.map(toRow))]);
  const stored = result.rowCount ?? 0;
  if (valid.some((r) => r.alerts_json)) {
    const fresh = new Set((result.rows ?? []).map((row) => row.idempotency_id));
    // The rows are stored: a failing lookup or sender must not fail the batch (it would be resent).
    await notifyAlerts(em, valid.filter((r) => fresh.delete(r.idempotency_id.slice(0, 128))), alerts).catch(() => {});
  }
  return { batch_id: batch.batch_id, stored, duplicates: valid.length - stored, rejected };
}
