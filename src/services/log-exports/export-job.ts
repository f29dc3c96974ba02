// The log export job (issue 9, item 2): runs in every control plane, claims one started export
// at a time and writes its logs as JSONL (one object per line, the export's requested_data
// fields) to `<dir>/<id>.jsonl`, a chunk at a time, recording progress (`processed` of `total`).
//
// Replicas share the work through PostgreSQL: an export is claimed with a lease
// (`for update skip locked`), renewed with every chunk; an export whose lease ran out (its
// replica died) is claimed again and restarts from the beginning. After each chunk the job
// checks the export is still in progress: cancel (stopped) or delete ends it and removes the
// partial file. A start in this process wakes the job at once (export-signal.ts); others poll.
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { once } from 'node:events';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { readBody, type LogExportField } from '../../domain/log-fields.ts';
import type { Logger } from '../../domain/logger.ts';
import { effectiveDeniedFields } from '../request-logs/field-restrictions.ts';
import { exportQuery, countExport } from './export-query.ts';
import { exportSignal } from './export-signal.ts';

export const DEFAULT_EXPORT_DIR = '.data/log-exports';
export const DEFAULT_EXPORT_POLL_MS = 2_000;
const LEASE_SECONDS = 60;

type Row = Record<string, unknown>;

const iso = (v: unknown) => (v instanceof Date ? v : new Date(String(v))).toISOString();

/** One exported line: the requested fields, named as in requested_data. */
export function exportLine(r: Row, fields: readonly LogExportField[]): Record<string, unknown> {
  const status = Number(r.status);
  const value: Record<LogExportField, () => unknown> = {
    id: () => r.id,
    trace_id: () => r.trace_id,
    created_at: () => iso(r.started_at),
    request: () => ({ url: r.request_url ?? `/v1/${String(r.endpoint).replace(/\./g, '/')}`, method: r.method, headers: r.request_headers ?? null, body: readBody((r.request_body as string | null) ?? null) }),
    response: () => ({ status, headers: r.response_headers ?? null, body: readBody((r.response_body as string | null) ?? null), response_time: Number(r.latency_ms) }),
    is_success: () => status >= 200 && status < 300,
    ai_org: () => r.provider,
    ai_model: () => r.model ?? null,
    req_units: () => Number(r.prompt_tokens),
    res_units: () => Number(r.completion_tokens),
    total_units: () => Number(r.total_tokens),
    request_url: () => r.request_url ?? `/v1/${String(r.endpoint).replace(/\./g, '/')}`,
    cost: () => Number(r.cost),
    cost_currency: () => r.cost_currency ?? 'USD',
    response_time: () => Number(r.latency_ms),
    response_status_code: () => status,
    mode: () => r.mode ?? null,
    config: () => r.config_id ?? null,
    prompt_slug: () => r.prompt_slug ?? null,
    metadata: () => r.metadata ?? null,
  };
  return Object.fromEntries(fields.map((f) => [f, value[f]()]));
}

interface Claimed {
  id: string;
  organisation_id: string;
  workspace_id: string;
  filters: Record<string, unknown>;
  requested_data: LogExportField[];
}

const CLAIM = `
  update log_export set lease_until = now() + interval '${LEASE_SECONDS} seconds'
   where id = (select id from log_export
                where status = 'in_progress' and archived_at is null and (lease_until is null or lease_until < now())
                order by started_at, id limit 1 for update skip locked)
  returning id, organisation_id, workspace_id, filters, requested_data`;

const exec = <T extends object[]>(em: EntityManager, sql: string, params: unknown[] = []): Promise<T> =>
  em.getConnection().execute(sql, params) as Promise<T>;

/** Still ours to run (not cancelled or deleted): records progress and renews the lease. */
async function progress(em: EntityManager, id: string, processed: number): Promise<boolean> {
  const rows = await exec<{ id: string }[]>(
    em,
    `update log_export set processed = ?, lease_until = now() + interval '${LEASE_SECONDS} seconds', last_updated_at = now()
      where id = ? and status = 'in_progress' and archived_at is null returning id`,
    [processed, id],
  );
  return rows.length === 1;
}

export interface ExportOutcome {
  id: string;
  status: 'success' | 'failed' | 'stopped';
  processed: number;
}

/** Writes one claimed export; the file appears under its final name only when complete. */
async function runExport(em: EntityManager, e: Claimed, dir: string, chunkSize: number, onProgress?: ProgressHook): Promise<ExportOutcome> {
  const scope = { organisationId: e.organisation_id, workspaceId: e.workspace_id, filters: e.filters };
  // Fields denied since the export was saved are left out too.
  const denied = new Set<string>(await effectiveDeniedFields(em, e.organisation_id, e.workspace_id));
  const fields = e.requested_data.filter((f) => !denied.has(f));
  const total = await countExport(em, scope);
  await exec<[]>(em, `update log_export set total = ?, processed = 0, last_updated_at = now() where id = ?`, [total, e.id]);
  const q = exportQuery(scope);
  await mkdir(dir, { recursive: true });
  const finalPath = resolve(join(dir, `${e.id}.jsonl`));
  const partPath = `${finalPath}.part`;
  const out = createWriteStream(partPath, { encoding: 'utf8' });
  let processed = 0;
  let cursor: [string, string] | null = null;
  let alive = true;
  try {
    while (processed < q.limit) {
      const take = Math.min(chunkSize, q.limit - processed);
      const keyset = cursor ? ' and (l.started_at, l.id) < (?::timestamptz, ?::uuid)' : '';
      const rows: (Row & { cursor_at: string; id: string })[] = await exec(
        em,
        `select l.*, l.started_at::text as cursor_at from request_log l where ${q.where}${keyset}
          order by l.started_at desc, l.id desc offset ? limit ?`,
        [...q.params, ...(cursor ?? []), cursor ? 0 : q.offset, take],
      );
      for (const r of rows) {
        if (!out.write(`${JSON.stringify(exportLine(r, fields))}\n`)) await once(out, 'drain');
      }
      processed += rows.length;
      await onProgress?.(e.id, processed);
      alive = await progress(em, e.id, processed);
      if (!alive || rows.length < take) break;
      const last = rows.at(-1)!;
      cursor = [last.cursor_at, last.id];
    }
    out.end();
    await once(out, 'close');
  } catch (err) {
    out.destroy();
    await rm(partPath, { force: true });
    throw err;
  }
  if (!alive) {
    await rm(partPath, { force: true });
    return { id: e.id, status: 'stopped', processed };
  }
  await rename(partPath, finalPath);
  const size = (await stat(finalPath)).size;
  const done = await exec<{ id: string }[]>(
    em,
    `update log_export set status = 'success', processed = ?, total = ?, file_path = ?, file_bytes = ?, finished_at = now(), lease_until = null, last_updated_at = now()
      where id = ? and status = 'in_progress' and archived_at is null returning id`,
    [processed, processed, finalPath, size, e.id],
  );
  if (!done.length) {
    // Cancelled or deleted after the last chunk.
    await rm(finalPath, { force: true });
    return { id: e.id, status: 'stopped', processed };
  }
  return { id: e.id, status: 'success', processed };
}

/** Called after each chunk is written, before progress is recorded (metrics, tests). */
export type ProgressHook = (id: string, processed: number) => Promise<void> | void;

/** Runs every claimable export once; answers what each ended as. */
export async function runExportsOnce(orm: MikroORM, opts: { dir?: string; chunkSize?: number; logger?: Logger; onProgress?: ProgressHook } = {}): Promise<ExportOutcome[]> {
  const outcomes: ExportOutcome[] = [];
  for (;;) {
    const em = orm.em.fork();
    const claimed = (await exec<Claimed[]>(em, CLAIM))[0];
    if (!claimed) return outcomes;
    try {
      outcomes.push(await runExport(em, claimed, opts.dir ?? DEFAULT_EXPORT_DIR, opts.chunkSize ?? 1000, opts.onProgress));
    } catch (err) {
      opts.logger?.error('log export failed', { id: claimed.id, err: String(err) });
      await exec<[]>(em, `update log_export set status = 'failed', error = ?, finished_at = now(), lease_until = null, last_updated_at = now() where id = ? and status = 'in_progress'`, [
        String((err as Error)?.message ?? err).slice(0, 1000),
        claimed.id,
      ]);
      outcomes.push({ id: claimed.id, status: 'failed', processed: 0 });
    }
  }
}

export interface ExportJob {
  runOnce(): Promise<ExportOutcome[]>;
  stop(): Promise<void>;
}

export interface ExportJobOptions {
  dir?: string;
  intervalMs?: number;
  chunkSize?: number;
  logger?: Logger;
}

/** Polls every `intervalMs` (and on every start in this process) until stopped. */
export function startExportJob(orm: MikroORM, opts: ExportJobOptions = {}): ExportJob {
  const intervalMs = opts.intervalMs ?? DEFAULT_EXPORT_POLL_MS;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running: Promise<ExportOutcome[]> = Promise.resolve([]);
  let again = false;

  const pass = (): Promise<ExportOutcome[]> => {
    running = running
      .catch(() => [])
      .then(() => (stopped ? [] : runExportsOnce(orm, opts)))
      .catch((err: unknown) => {
        opts.logger?.error('log export pass failed', { err: String(err) });
        return [];
      });
    return running;
  };
  const onWake = () => {
    if (stopped || again) return;
    again = true;
    void running.finally(() => {
      again = false;
      void pass();
    });
  };
  exportSignal.on('wake', onWake);
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => void pass().finally(schedule), intervalMs);
    timer.unref?.();
  };
  schedule();
  return {
    runOnce: pass,
    async stop() {
      stopped = true;
      exportSignal.off('wake', onWake);
      if (timer) clearTimeout(timer);
      await running.catch(() => undefined);
    },
  };
}
