// One writer for request_log (issue 9, item 1): worker batches (services/usage/store-usage.ts) and
// custom logs (POST /logs) both land here, in one statement per batch.
import type { EntityManager } from '@mikro-orm/postgresql';
import { STORED_DENIABLE } from '../../domain/log-fields.ts';
import { deniedFieldsFor } from './field-restrictions.ts';

/** A request_log row as inserted (snake_case = column names). */
export interface LogRow {
  id: string;
  idempotency_id: string;
  request_id: string;
  attempt: number;
  trace_id: string;
  organisation_id: string;
  workspace_id: string | null;
  api_key_id: string | null;
  provider: string;
  model: string | null;
  endpoint: string;
  method: string;
  status: number;
  latency_ms: number;
  upstream_latency_ms: number;
  prompt_tokens: number;
  /** Of prompt_tokens, those read from the provider's prompt cache (null: not reported). */
  cached_prompt_tokens: number | null;
  completion_tokens: number;
  total_tokens: number;
  is_stream: boolean;
  error_code: string | null;
  metadata: Record<string, unknown> | null;
  started_at: Date;
  user_id: string | null;
  /** Cents; null when the model has no price. */
  cost: number | null;
  cost_currency: string;
  cache_status: string | null;
  retry_count: number;
  target_path: string | null;
  guardrail_verdicts: unknown[] | null;
  request_url: string | null;
  request_headers: Record<string, string> | null;
  request_body: string | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
  bodies_truncated: boolean;
  is_proxy: boolean;
  config_id: string | null;
  virtual_key: string | null;
  prompt_slug: string | null;
  span_id: string | null;
  span_name: string | null;
  mode: string | null;
  source: 'gateway' | 'custom';
}

// Every column of LogRow, and only those (the compiler checks both ways).
const COLUMN_SET: Record<keyof LogRow, true> = {
  id: true, idempotency_id: true, request_id: true, attempt: true, trace_id: true, organisation_id: true, workspace_id: true,
  api_key_id: true, provider: true, model: true, endpoint: true, method: true, status: true, latency_ms: true,
  upstream_latency_ms: true, prompt_tokens: true, cached_prompt_tokens: true, completion_tokens: true, total_tokens: true, is_stream: true,
  error_code: true, metadata: true, started_at: true, user_id: true, cost: true, cost_currency: true, cache_status: true,
  retry_count: true, target_path: true, guardrail_verdicts: true, request_url: true, request_headers: true, request_body: true,
  response_headers: true, response_body: true, bodies_truncated: true, is_proxy: true, config_id: true, virtual_key: true,
  prompt_slug: true, span_id: true, span_name: true, mode: true, source: true,
};
const COLUMNS = Object.keys(COLUMN_SET).join(', ');

/**
 * The rows travel as a single JSON parameter that PostgreSQL expands into `request_log` rows
 * (json_populate_recordset, typed by the table), not ~40 bind parameters per row. Each row first
 * claims its idempotency id in request_log_dedup; only rows whose id was not stored before (by an
 * earlier batch, a resend, or an earlier row of this batch) are inserted — a resent batch counts
 * once (ARCHITECTURE.md: Report; migration 0011 for why the claim is a separate table).
 */
const INSERT = `with rows as (select * from json_populate_recordset(null::request_log, ?::json)),
  fresh as (insert into request_log_dedup (idempotency_id, started_at)
            select distinct on (idempotency_id) idempotency_id, started_at from rows
            on conflict (idempotency_id) do nothing returning idempotency_id)
  insert into request_log (${COLUMNS})
  select distinct on (r.idempotency_id) ${COLUMNS.split(', ').map((c) => `r.${c}`).join(', ')} from rows r join fresh f on f.idempotency_id = r.idempotency_id
  returning idempotency_id`;

const MONTH = (d: Date) => `${d.getUTCFullYear()}-${d.getUTCMonth()}`;
/** Months this process knows have a partition (created by it, the maintenance job or the migration). */
const knownMonths = new Set<string>();

/** Forgets partitions (the retention job dropped some). */
export function forgetPartitions(): void {
  knownMonths.clear();
}

async function ensurePartitions(em: EntityManager, rows: LogRow[]): Promise<void> {
  const missing = new Map<string, Date>();
  for (const r of rows) {
    const m = MONTH(r.started_at);
    if (!knownMonths.has(m) && !missing.has(m)) missing.set(m, r.started_at);
  }
  for (const [m, at] of missing) {
    await em.getConnection().execute('select request_log_ensure_partition(?) as p', [at], 'all', em.getTransactionContext());
    knownMonths.add(m);
  }
}

/** Drops the content of the workspace's denied fields (request, response, metadata) before storing. */
async function applyDeniedFields(em: EntityManager, rows: LogRow[]): Promise<void> {
  const scopes = new Map<string, { organisationId: string; workspaceId: string | null }>();
  for (const r of rows) scopes.set(`${r.organisation_id}/${r.workspace_id}`, { organisationId: r.organisation_id, workspaceId: r.workspace_id });
  const denied = await deniedFieldsFor(em, [...scopes.values()]);
  for (const r of rows) {
    const d = denied.get(`${r.organisation_id}/${r.workspace_id}`) ?? [];
    for (const f of d) {
      if (!(STORED_DENIABLE as readonly string[]).includes(f)) continue;
      if (f === 'request') Object.assign(r, { request_headers: null, request_body: null });
      if (f === 'response') Object.assign(r, { response_headers: null, response_body: null });
      if (f === 'metadata') r.metadata = null;
    }
  }
}

const NO_PARTITION = '23514'; // check_violation: "no partition of relation … found for row"

/**
 * Through knex with a bound parameter (pg sends the JSON as $1), in the caller's transaction if
 * any. The ORM's execute() formats parameters into the SQL text instead: measured 3–8× the CPU
 * per record for batches of 1000.
 */
async function runInsert(em: EntityManager, payload: string): Promise<StoredRows> {
  const query = em.getConnection().getKnex().raw(INSERT, [payload]);
  const trx = em.getTransactionContext();
  if (trx) query.transacting(trx);
  const result = (await query) as { rowCount: number | null; rows?: { idempotency_id: string }[] };
  return { stored: result.rowCount ?? 0, fresh: new Set((result.rows ?? []).map((r) => r.idempotency_id)) };
}

export interface StoredRows {
  /** How many rows were new. */
  stored: number;
  /** Their idempotency ids (resends are not among them). */
  fresh: Set<string>;
}

/** Inserts the rows (one statement, in the caller's transaction if any); answers which were new. */
export async function insertLogRows(em: EntityManager, rows: LogRow[]): Promise<StoredRows> {
  if (!rows.length) return { stored: 0, fresh: new Set() };
  await applyDeniedFields(em, rows);
  await ensurePartitions(em, rows);
  const payload = JSON.stringify(rows);
  try {
    return await runInsert(em, payload);
  } catch (err) {
    // Another replica's retention job dropped a partition this process still believed in.
    if ((err as { code?: string }).code !== NO_PARTITION || em.getTransactionContext()) throw err;
    forgetPartitions();
    await ensurePartitions(em, rows);
    return runInsert(em, payload);
  }
}
