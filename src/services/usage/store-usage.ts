import type { EntityManager } from '@mikro-orm/postgresql';
import type { ReportAck, UsageBatch, UsageRecord } from '../../domain/usage-record.ts';

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
  };
}

// Every column toRow fills, and only those (the compiler checks both ways).
const COLUMN_SET: Record<keyof ReturnType<typeof toRow>, true> = {
  id: true, idempotency_id: true, request_id: true, attempt: true, trace_id: true, organisation_id: true, workspace_id: true,
  api_key_id: true, provider: true, model: true, endpoint: true, method: true, status: true, latency_ms: true,
  upstream_latency_ms: true, prompt_tokens: true, completion_tokens: true, total_tokens: true, is_stream: true,
  error_code: true, metadata: true, started_at: true,
};
const COLUMNS = Object.keys(COLUMN_SET).join(', ');

/**
 * One statement per batch whatever its size: the rows travel as a single JSON parameter that
 * PostgreSQL expands into `request_log` rows (json_populate_recordset, typed by the table), instead of
 * 22 bind parameters per row. Ids already stored are skipped, so a batch resent after a reconnect is
 * counted once (ARCHITECTURE.md: Report); a record repeated within the batch is stored once too.
 */
const INSERT = `insert into request_log (${COLUMNS}) select ${COLUMNS} from json_populate_recordset(null::request_log, ?::json) on conflict (idempotency_id) do nothing`;

/** Stores a batch; the ack counts the records newly stored, already stored, and malformed. */
export async function storeUsageBatch(em: EntityManager, batch: UsageBatch): Promise<ReportAck> {
  const valid = batch.records.filter((r) => r.idempotency_id && UUID.test(r.organisation_id));
  const rejected = batch.records.length - valid.length;
  if (!valid.length) return { batch_id: batch.batch_id, stored: 0, duplicates: 0, rejected };
  const result: { rowCount: number | null } = await em.getConnection().getKnex().raw(INSERT, [JSON.stringify(valid.map(toRow))]);
  const stored = result.rowCount ?? 0;
  return { batch_id: batch.batch_id, stored, duplicates: valid.length - stored, rejected };
}
