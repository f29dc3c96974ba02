// One per control-plane replica: follows the resource_change log and hands each new change to
// the replica's watchers once. LISTEN/NOTIFY makes it immediate; a poll is the safety net (a
// missed notification, a dropped connection), so a change made through any replica reaches the
// workers connected to every replica.
import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../../domain/logger.ts';
import type { ResourceEvent } from '../../domain/sync-codec.ts';
import type { WorkerResolvers } from './worker-resolvers.ts';
import { changesAfter, eventsFor, lastVersion, snapshotBounds, versionOlderThan } from './resource-changes.ts';

export const RESOURCE_CHANGE_CHANNEL = 'resource_change';

export interface ChangeFeedOptions {
  /** LISTEN for notifications on a dedicated connection (default true; the embedded PGlite takes one connection only). */
  listen?: boolean;
  /** Connection string of the LISTEN connection (default: the ORM's). */
  databaseUrl?: string;
  /** Safety-net read interval (default 2 s). */
  pollIntervalMs?: number;
  /** LISTEN reconnect backoff bounds (default 200 ms .. 10 s). */
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
  /** Rows read per query (default 2 000). */
  pageSize?: number;
  logger: Logger;
  /** Resolves upserts of non-key resources for the pushed events. */
  resolvers?: WorkerResolvers;
}

export type ChangeListener = (events: ResourceEvent[]) => void;

interface Checkpoint {
  /** resource_revision_seq's last value, read before `xmax`. */
  last: number;
  /** Snapshot xmax taken after `last`: every transaction that drew a version ≤ `last` has an id below it. */
  xmax: bigint;
}

/** Rows already committed this long ago are history when the feed starts (served by catch-up, not pushed). */
const START_HORIZON_MS = 10 * 60_000;
const MAX_CHECKPOINTS = 64;

/**
 * Versions are drawn when a change is made but become visible when its transaction commits, so a
 * lower version can appear after a higher one. The feed therefore does not just follow "the
 * highest version seen": it re-reads from a watermark below which every version is final (every
 * transaction that could have drawn one has ended, judged by snapshot xmin) and skips versions it
 * already delivered above it. Each change reaches the watchers once, none is skipped.
 */
export class ChangeFeed {
  private watermark = 0;
  private readonly delivered = new Set<number>();
  private checkpoints: Checkpoint[] = [];
  private readonly listeners = new Set<ChangeListener>();
  private reading: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private pollTimer: ReturnType<typeof setInterval> | null = null;
  private client: pg.Client | null = null;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private backoff: number;
  private listening = false;
  private listenSessions = 0;
  private highest = 0;
  private readonly pageSize: number;

  constructor(private readonly orm: MikroORM, private readonly opts: ChangeFeedOptions) {
    this.backoff = opts.reconnectMinMs ?? 200;
    this.pageSize = opts.pageSize ?? 2_000;
  }

  async start(): Promise<void> {
    const em = this.orm.em.fork();
    this.watermark = await versionOlderThan(em, START_HORIZON_MS);
    this.highest = this.watermark;
    await this.read(); // the recent past, delivered to nobody: from now on only new changes go out
    this.pollTimer = setInterval(() => this.kick(), this.opts.pollIntervalMs ?? 2_000);
    this.pollTimer.unref?.();
    if (this.opts.listen !== false) await this.connect();
  }

  /** Reads new changes now (coalesced with a read already running). */
  kick(): void {
    if (this.stopped) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = this.read()
      .catch((err: unknown) => this.opts.logger.warn('reading resource changes failed', { err: String(err) }))
      .finally(() => {
        this.reading = null;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The highest version delivered so far. */
  get version(): number {
    return this.highest;
  }

  /** Whether the LISTEN connection is up. */
  get isListening(): boolean {
    return this.listening;
  }

  /** LISTEN connections made so far (more than one: it reconnected). */
  get listenConnections(): number {
    return this.listenSessions;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = null;
    this.listening = false;
    await client?.end().catch(() => {});
    await this.reading?.catch(() => {});
  }

  private async read(): Promise<void> {
    const em = this.orm.em.fork();
    const last = await lastVersion(em);
    const { xmin, xmax } = await snapshotBounds(em);
    // Checkpoints whose transactions have all ended: their versions are visible to the reads below, or never will be.
    const final = this.checkpoints.filter((c) => c.xmax <= xmin);
    this.checkpoints = this.checkpoints.filter((c) => c.xmax > xmin);
    this.addCheckpoint({ last, xmax });

    let cursor = this.watermark;
    for (;;) {
      const rows = await changesAfter(em, cursor, this.pageSize);
      const fresh = rows.filter((r) => !this.delivered.has(r.version));
      if (fresh.length) {
        const events = await eventsFor(em, fresh, { resolve: this.listeners.size > 0, resolvers: this.opts.resolvers });
        for (const r of fresh) this.delivered.add(r.version);
        this.highest = Math.max(this.highest, fresh[fresh.length - 1]!.version);
        for (const listener of this.listeners) {
          try {
            listener(events);
          } catch (err) {
            this.opts.logger.error('watch listener failed', { err: String(err) });
          }
        }
      }
      if (rows.length < this.pageSize) break;
      cursor = rows[rows.length - 1]!.version;
    }

    const upTo = final.reduce((m, c) => Math.max(m, c.last), this.watermark);
    if (upTo > this.watermark) {
      this.watermark = upTo;
      for (const v of this.delivered) if (v <= upTo) this.delivered.delete(v);
    }
  }

  private addCheckpoint(c: Checkpoint): void {
    const tail = this.checkpoints[this.checkpoints.length - 1];
    if (tail && (tail.xmax === c.xmax || this.checkpoints.length >= MAX_CHECKPOINTS)) {
      // Merging is conservative: the merged checkpoint is final only once both would be.
      tail.last = Math.max(tail.last, c.last);
      if (c.xmax > tail.xmax) tail.xmax = c.xmax;
      return;
    }
    this.checkpoints.push(c);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    this.reconnectTimer = null;
    const connectionString = this.opts.databaseUrl ?? (this.orm.config.get('clientUrl') as string);
    const client = new pg.Client({ connectionString });
    this.client = client;
    let failed = false;
    const lost = (err?: unknown) => {
      if (failed || this.client !== client) return;
      failed = true;
      this.listening = false;
      this.client = null;
      client.end().catch(() => {});
      if (this.stopped) return;
      this.opts.logger.warn('resource_change LISTEN connection lost; reconnecting', { err: err === undefined ? undefined : String(err), retry_ms: this.backoff });
      this.reconnectTimer = setTimeout(() => void this.connect(), this.backoff);
      this.reconnectTimer.unref?.();
      this.backoff = Math.min(this.backoff * 2, this.opts.reconnectMaxMs ?? 10_000);
    };
    client.on('notification', () => this.kick());
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      await client.query(`LISTEN ${RESOURCE_CHANGE_CHANNEL}`);
      if (this.client !== client) return;
      this.listening = true;
      this.listenSessions++;
      this.backoff = this.opts.reconnectMinMs ?? 200;
      this.kick(); // anything committed while not listening
    } catch (err) {
      lost(err);
    }
  }
}
