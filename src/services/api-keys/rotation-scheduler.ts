// Scheduled rotation (issue 3, item 2: "Scheduled rotation runs in the control plane at
// next_rotation_at. Rotating issues a new secret and keeps the old one valid for the transition
// period, then never again."): a control-plane job that rotates every key whose
// rotation_policy.next_rotation_at has passed, exactly as a manual rotation does — a new secret,
// the old one valid for the policy's key_transition_period_ms (else the manual default), the next
// rotation one period on — and keeps the new secret sealed (src/platform/secret-box.ts) in
// pending_key_ciphertext until the key's owner claims it once
// (`POST /api-keys/{id}/rotation/claim`, see claim-rotated-key.ts). One `api_key.rotate` audit
// event per key (actor null, details.scheduled = true), never with the secret.
//
// Several control-plane replicas may run the job: each pass claims due rows with
// `select … for update skip locked` inside its transaction, and a rotated row no longer matches
// once its new next_rotation_at is committed, so every due key is rotated exactly once.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../../domain/logger.ts';
import { ApiKeySchema } from '../../persistence/entities/index.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { secretMaterial } from './issue-key.ts';
import { DEFAULT_TRANSITION_MS, type StoredRotationPolicy } from './key-rules.ts';
import { applyRotation, pendingSecretContext } from './rotate-api-key.ts';

export const DEFAULT_ROTATION_INTERVAL_MS = 60_000;

export interface ScheduledRotation {
  id: string;
  organisationId: string;
  /** The next_rotation_at that had passed. */
  scheduledFor: string;
  rotatedAt: string;
  /** When the secret before the rotation stops working. */
  keyTransitionExpiresAt: string;
}

const DUE_KEYS = `
  select id from api_key
   where deleted_at is null
     and status <> 'revoked'
     and (expires_at is null or expires_at > ?)
     and jsonb_typeof(rotation_policy -> 'next_rotation_at') = 'string'
     and (rotation_policy ->> 'next_rotation_at')::timestamptz <= ?
   order by (rotation_policy ->> 'next_rotation_at')::timestamptz, id
   limit ?
   for update skip locked`;

/** One batch in one transaction: claims up to `batchSize` due keys and rotates each. */
async function rotateBatch(em: EntityManager, box: SecretBox, now: Date, batchSize: number): Promise<ScheduledRotation[]> {
  return em.transactional(async (tx) => {
    const rows = await tx.getConnection().execute<{ id: string }[]>(DUE_KEYS, [now, now, batchSize], 'all', tx.getTransactionContext());
    if (!rows.length) return [];
    // The rows are locked by this transaction: loading them through the ORM reads the same versions.
    const keys = await tx.find(ApiKeySchema, { id: { $in: rows.map((r) => r.id) } }, { refresh: true });
    const out: ScheduledRotation[] = [];
    for (const key of keys) {
      const policy = (key.rotationPolicy as StoredRotationPolicy | null) ?? {};
      const scheduledFor = policy.next_rotation_at ?? now.toISOString();
      const transitionMs = policy.key_transition_period_ms ?? DEFAULT_TRANSITION_MS;
      const material = await secretMaterial();
      const ciphertext = box.seal(material.secret, pendingSecretContext(key.id));
      const { transitionEndsAt, replacedPrevious, discardedPending } = applyRotation(key, material, transitionMs, now, { ciphertext });
      recordAudit(tx, null, null, {
        action: 'api_key.rotate',
        targetType: 'api_key',
        targetId: key.id,
        workspaceId: key.workspaceId ?? null,
        details: {
          organisation_id: key.organisationId,
          scheduled: true,
          scheduled_for: scheduledFor,
          key_transition_period_ms: transitionMs,
          key_transition_expires_at: transitionEndsAt.toISOString(),
          older_previous_secret_ended: replacedPrevious,
          unclaimed_secret_discarded: discardedPending,
          next_rotation_at: (key.rotationPolicy as StoredRotationPolicy | null)?.next_rotation_at ?? null,
          note: 'The new secret is kept encrypted until claimed once: POST /api-keys/{id}/rotation/claim.',
        },
      });
      out.push({ id: key.id, organisationId: key.organisationId, scheduledFor, rotatedAt: now.toISOString(), keyTransitionExpiresAt: transitionEndsAt.toISOString() });
    }
    return out;
  });
}

/** One pass over every due key (in batches); safe to run on several replicas at once. */
export async function runScheduledRotations(orm: MikroORM, box: SecretBox, opts: { now?: Date; batchSize?: number } = {}): Promise<ScheduledRotation[]> {
  const batchSize = opts.batchSize ?? 100;
  const now = opts.now ?? new Date();
  const done: ScheduledRotation[] = [];
  for (;;) {
    const batch = await rotateBatch(orm.em.fork(), box, now, batchSize);
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
  /** Called after each pass that rotated keys (tests, metrics). */
  onPass?: (rotated: ScheduledRotation[]) => void;
}

/** Runs {@link runScheduledRotations} every `intervalMs` (default 60 s) until stopped. */
export function startRotationScheduler(orm: MikroORM, box: SecretBox, opts: RotationSchedulerOptions = {}): RotationScheduler {
  const intervalMs = opts.intervalMs ?? DEFAULT_ROTATION_INTERVAL_MS;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running: Promise<ScheduledRotation[]> = Promise.resolve([]);

  const pass = (): Promise<ScheduledRotation[]> => {
    running = running
      .catch(() => [])
      .then(() => runScheduledRotations(orm, box, { batchSize: opts.batchSize }))
      .then(
        (rotated) => {
          if (rotated.length) {
            opts.logger?.info('scheduled rotations done', { count: rotated.length, ids: rotated.map((m) => m.id) });
            opts.onPass?.(rotated);
          }
          return rotated;
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
