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

/**
 * Stores a batch in one statement; ids already stored are skipped, so a batch resent after
 * a reconnect is counted once (ARCHITECTURE.md: Report).
 */
export async function storeUsageBatch(em: EntityManager, batch: UsageBatch): Promise<ReportAck> {
  const valid = batch.records.filter((r) => r.idempotency_id && UUID.test(r.organisation_id));
  const rejected = batch.records.length - valid.length;
  if (!valid.length) return { batch_id: batch.batch_id, stored: 0, duplicates: 0, rejected };
  const knex = em.getConnection().getKnex();
  const inserted = await knex('request_log').insert(valid.map(toRow)).onConflict('idempotency_id').ignore().returning('id');
  return { batch_id: batch.batch_id, stored: inserted.length, duplicates: valid.length - inserted.length, rejected };
}
