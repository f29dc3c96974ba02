// Scheduled rotation (issue 3, item 2: "Scheduled rotation runs in the control plane at
// next_rotation_at"): a control-plane job that finds keys whose rotation_policy.next_rotation_at
// has passed.
//
// What it does at that moment, and why: a new secret that nobody can read is worse than none
// (every client of the key would be locked out when the transition ends), and a secret can only
// be kept for its owner to fetch once if it is stored encrypted, which needs a column the schema
// does not have yet. So, until that column exists, the job records that the rotation is DUE —
// `rotation_policy.rotation_due_at`, shown as `rotation_due` on the ApiKey object — with one
// `api_key.rotate` audit event (actor null, details.scheduled = true, details.secret_rotated =
// false), and the current secret keeps working. The next `POST /api-keys/{id}/rotate` issues the
// new secret, clears the mark and schedules the next rotation.
//
// Several control-plane replicas may run the job: each pass claims due rows with
// `select … for update skip locked` inside its transaction, and a claimed row no longer matches
// once its mark is committed, so every due key is handled exactly once.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../../domain/logger.ts';
import { ApiKeySchema } from '../../persistence/entities/index.ts';
import { recordAudit } from '../audit/record-audit.ts';
import type { StoredRotationPolicy } from './key-rules.ts';

export const DEFAULT_ROTATION_INTERVAL_MS = 60_000;

export interface ScheduledRotation {
  id: string;
  organisationId: string;
  dueAt: string;
}

const DUE_KEYS = `
  select id from api_key
   where deleted_at is null
     and status <> 'revoked'
     and (expires_at is null or expires_at > ?)
     and jsonb_typeof(rotation_policy -> 'next_rotation_at') = 'string'
     and coalesce(jsonb_typeof(rotation_policy -> 'rotation_due_at'), 'null') = 'null'
     and (rotation_policy ->> 'next_rotation_at')::timestamptz <= ?
   order by (rotation_policy ->> 'next_rotation_at')::timestamptz, id
   limit ?
   for update skip locked`;

/** One batch in one transaction: claims up to `batchSize` due keys and marks each. */
async function markBatch(em: EntityManager, now: Date, batchSize: number): Promise<ScheduledRotation[]> {
  return em.transactional(async (tx) => {
    const rows = await tx.getConnection().execute<{ id: string }[]>(DUE_KEYS, [now, now, batchSize], 'all', tx.getTransactionContext());
    if (!rows.length) return [];
    // The rows are locked by this transaction: loading them through the ORM reads the same versions.
    const keys = await tx.find(ApiKeySchema, { id: { $in: rows.map((r) => r.id) } }, { refresh: true });
    const out: ScheduledRotation[] = [];
    for (const key of keys) {
      const policy = (key.rotationPolicy as StoredRotationPolicy | null) ?? {};
      const dueAt = now.toISOString();
      const marked: StoredRotationPolicy = { ...policy, rotation_due_at: dueAt };
      key.rotationPolicy = marked;
      recordAudit(tx, null, null, {
        action: 'api_key.rotate',
        targetType: 'api_key',
        targetId: key.id,
        workspaceId: key.workspaceId ?? null,
        details: {
          organisation_id: key.organisationId,
          scheduled: true,
          secret_rotated: false,
          rotation_due_at: dueAt,
          next_rotation_at: policy.next_rotation_at ?? null,
          note: 'Rotation is due; the current secret keeps working until the key is rotated (POST /api-keys/{id}/rotate).',
        },
      });
      out.push({ id: key.id, organisationId: key.organisationId, dueAt });
    }
    return out;
  });
}

/** One pass over every due key (in batches); safe to run on several replicas at once. */
export async function runScheduledRotations(orm: MikroORM, opts: { now?: Date; batchSize?: number } = {}): Promise<ScheduledRotation[]> {
  const batchSize = opts.batchSize ?? 100;
  const now = opts.now ?? new Date();
  const done: ScheduledRotation[] = [];
  for (;;) {
    const batch = await markBatch(orm.em.fork(), now, batchSize);
    done.push(...batch);
    if (batch.length < batchSize) return done;
  }
}

export interface RotationScheduler {
  /** Runs a pass now (waits for a running one first). */
  runOnce(): Promise<ScheduledRotation[]>;
  /** Stops the timer and waits for a running pass. */
  stop(): Promise<void>;
}

export interface RotationSchedulerOptions {
  intervalMs?: number;
  batchSize?: number;
  logger?: Logger;
  /** Called after each pass that marked keys (tests, metrics). */
  onPass?: (marked: ScheduledRotation[]) => void;
}

/** Runs {@link runScheduledRotations} every `intervalMs` (default 60 s) until stopped. */
export function startRotationScheduler(orm: MikroORM, opts: RotationSchedulerOptions = {}): RotationScheduler {
  const intervalMs = opts.intervalMs ?? DEFAULT_ROTATION_INTERVAL_MS;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running: Promise<ScheduledRotation[]> = Promise.resolve([]);

  const pass = (): Promise<ScheduledRotation[]> => {
    running = running
      .catch(() => [])
      .then(() => runScheduledRotations(orm, { batchSize: opts.batchSize }))
      .then(
        (marked) => {
          if (marked.length) {
            opts.logger?.info('scheduled rotations due', { count: marked.length, ids: marked.map((m) => m.id) });
            opts.onPass?.(marked);
          }
          return marked;
        },
        (err: unknown) => {
          opts.logger?.error('scheduled rotation pass failed', { err: String(err) });
          return [];
        },
      );
    return running;
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      void pass().finally(schedule);
    }, intervalMs);
    timer.unref?.();
  };
  schedule();

  return {
    runOnce: pass,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running.catch(() => undefined);
    },
  };
}
