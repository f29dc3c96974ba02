// Request-log partition upkeep (issue 9, item 1: "time-partitioned … retention configurable"):
// creates the monthly partitions ahead of time (this month and `monthsAhead` more) so inserts
// never wait on DDL, and drops whole partitions once every row they can hold is older than the
// retention (so a log lives at least `retentionDays`, at most about a month longer). Dropping a
// partition is instant and leaves no dead rows, unlike deleting. Safe on several replicas:
// creation is idempotent and a partition already dropped is skipped.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../../domain/logger.ts';
import { forgetPartitions } from './insert-logs.ts';

export const DEFAULT_RETENTION_DAYS = 30;
export const DEFAULT_MAINTENANCE_INTERVAL_MS = 3_600_000;

export interface MaintenanceResult {
  ensured: string[];
  dropped: string[];
}

const PARTITION = /^request_log_p(\d{4})(\d{2})$/;

/** One pass: partitions ahead, then retention (retentionDays 0 = keep everything). */
export async function maintainRequestLogs(orm: MikroORM, opts: { retentionDays?: number; monthsAhead?: number; now?: Date } = {}): Promise<MaintenanceResult> {
  const now = opts.now ?? new Date();
  const conn = orm.em.fork().getConnection();
  const ensured: string[] = [];
  for (let i = 0; i <= (opts.monthsAhead ?? 2); i++) {
    const at = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + i, 1));
    const [row] = await conn.execute<{ p: string }[]>('select request_log_ensure_partition(?) as p', [at]);
    ensured.push(row!.p);
  }
  const dropped: string[] = [];
  const retentionDays = opts.retentionDays ?? DEFAULT_RETENTION_DAYS;
  if (retentionDays > 0) {
    const cutoff = now.getTime() - retentionDays * 86_400_000;
    const parts = await conn.execute<{ name: string }[]>(
      `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'request_log'::regclass order by 1`,
    );
    for (const { name } of parts) {
      const m = PARTITION.exec(name);
      if (!m) continue;
      const end = Date.UTC(Number(m[1]), Number(m[2]), 1); // first instant of the next month
      if (end > cutoff) continue;
      await conn.execute(`drop table if exists "${name}"`);
      dropped.push(name);
    }
    if (dropped.length) {
      forgetPartitions();
      // The claimed ids of the dropped months: everything before the first month still kept
      // (kept months all end after the cutoff, dropped ones before it).
      const keptStarts = parts
        .filter((p) => !dropped.includes(p.name))
        .map((p) => PARTITION.exec(p.name))
        .filter((m): m is RegExpExecArray => !!m)
        .map((m) => Date.UTC(Number(m[1]), Number(m[2]) - 1, 1));
      const keptFrom = Math.min(cutoff, ...keptStarts);
      await conn.execute('delete from request_log_dedup where started_at < ?', [new Date(keptFrom)]);
    }
  }
  return { ensured, dropped };
}

export interface LogMaintenance {
  runOnce(): Promise<MaintenanceResult>;
  stop(): Promise<void>;
}

/** Runs a pass at start and every `intervalMs` (default hourly) until stopped. */
export function startLogMaintenance(orm: MikroORM, opts: { retentionDays?: number; intervalMs?: number; logger?: Logger } = {}): LogMaintenance {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running: Promise<MaintenanceResult> = Promise.resolve({ ensured: [], dropped: [] });
  const pass = () => {
    running = running
      .catch(() => ({ ensured: [], dropped: [] }))
      .then(() => maintainRequestLogs(orm, { retentionDays: opts.retentionDays }))
      .then(
        (r) => {
          if (r.dropped.length) opts.logger?.info('request log partitions dropped (retention)', { dropped: r.dropped });
          return r;
        },
        (err: unknown) => {
          opts.logger?.error('request log maintenance failed', { err: String(err) });
          return { ensured: [], dropped: [] };
        },
      );
    return running;
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => void pass().finally(schedule), opts.intervalMs ?? DEFAULT_MAINTENANCE_INTERVAL_MS);
    timer.unref?.();
  };
  void pass().finally(schedule);
  return {
    runOnce: pass,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running.catch(() => undefined);
    },
  };
}
