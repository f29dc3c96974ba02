import type { Logger } from '../../src/domain/logger.ts';
import type { ReportAck, UsageBatch, UsageRecord } from '../../src/domain/usage-record.ts';
import type { ReportChannel, ReportStream } from '../contracts.ts';

/**
 * What happens to a record when the buffer already holds `maxBuffered`:
 * `drop-oldest` evicts the oldest held records (unacknowledged batches first, so the newest usage
 * survives a long outage); `drop-newest` refuses the incoming record and keeps what is held.
 */
export type UsageOverflow = 'drop-oldest' | 'drop-newest';

export interface UsageReporterOptions {
  batchSize: number;
  flushIntervalMs: number;
  /** Records held (queued + awaiting acknowledgement) before overflow drops records (counted, never silent). */
  maxBuffered: number;
  /** Default `drop-oldest`. */
  overflow?: UsageOverflow | undefined;
  /** At most one overflow warning per this interval (default 10 s), carrying the running count. */
  overflowWarnIntervalMs?: number;
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
}

export interface UsageReporterStats {
  queued: number;
  awaitingAck: number;
  acknowledged: number;
  /** Records given up on without an acknowledgement because the buffer was full. */
  dropped: number;
  connected: boolean;
}

/**
 * Sends usage records off the request path in acknowledged batches; unacknowledged batches
 * are kept and resent after a reconnect (ARCHITECTURE.md: Report). The control plane
 * dedupes by idempotency id, so a resend never double-counts.
 */
export class UsageReporter {
  private queue: UsageRecord[] = [];
  private readonly inflight = new Map<string, UsageBatch>();
  private stream: ReportStream | null = null;
  private connected = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private backoff: number;
  private closed = false;
  private seq = 0;
  private readonly idleWaiters: (() => void)[] = [];
  private stats = { acknowledged: 0, dropped: 0 };
  /** Records queued + awaiting acknowledgement. */
  private held = 0;
  private readonly overflow: UsageOverflow;
  private readonly warnIntervalMs: number;
  private lastWarnAt = Number.NEGATIVE_INFINITY;
  private droppedSinceWarning = 0;
  private warnTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly channel: ReportChannel, private readonly opts: UsageReporterOptions, private readonly logger: Logger) {
    this.backoff = opts.reconnectMinMs ?? 100;
    this.overflow = opts.overflow ?? 'drop-oldest';
    this.warnIntervalMs = opts.overflowWarnIntervalMs ?? 10_000;
  }

  start(): void {
    this.connect();
  }

  /** Never blocks: the record is queued and sent by the next flush. */
  push(record: UsageRecord): void {
    if (this.closed) return;
    if (this.held >= this.opts.maxBuffered) {
      if (this.overflow === 'drop-newest') {
        this.noteDropped(1);
        return;
      }
      this.evictOldest(this.held - this.opts.maxBuffered + 1);
    }
    this.queue.push(record);
    this.held++;
    if (this.queue.length >= this.opts.batchSize) this.flush();
    else if (!this.timer) this.timer = setTimeout(() => this.flush(), this.opts.flushIntervalMs);
  }

  snapshot(): UsageReporterStats {
    const queued = this.queue.length;
    return { queued, awaitingAck: this.held - queued, acknowledged: this.stats.acknowledged, dropped: this.stats.dropped, connected: this.connected };
  }

  /** Resolves once everything pushed so far is acknowledged (or the timeout passes). */
  async drain(timeoutMs: number): Promise<boolean> {
    this.flush();
    if (this.isIdle()) return true;
    return new Promise<boolean>((resolve) => {
      const t = setTimeout(() => resolve(false), timeoutMs);
      this.idleWaiters.push(() => {
        clearTimeout(t);
        resolve(true);
      });
    });
  }

  async close(timeoutMs = 5_000): Promise<void> {
    const drained = await this.drain(timeoutMs);
    if (!drained) this.logger.warn('usage reporter closed with unacknowledged records', this.snapshot() as unknown as Record<string, unknown>);
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.warnDropped(); // the last overflow count is reported, not lost with the timer
    this.stream?.end();
    this.stream = null;
  }

  private isIdle(): boolean {
    return this.queue.length === 0 && this.inflight.size === 0;
  }

  /** drop-oldest: frees `n` places by giving up on the oldest held records, unacknowledged batches first. */
  private evictOldest(n: number): void {
    let left = n;
    for (const [id, batch] of this.inflight) {
      if (left <= 0) break;
      const take = Math.min(left, batch.records.length);
      // A batch already written keeps its id; a resend carries only its remaining records
      // (a new object, so a write still being encoded is untouched).
      if (take === batch.records.length) this.inflight.delete(id);
      else this.inflight.set(id, { batch_id: id, records: batch.records.slice(take) });
      left -= take;
    }
    if (left > 0) left -= this.queue.splice(0, left).length;
    const dropped = n - left;
    this.held -= dropped;
    this.noteDropped(dropped);
  }

  /** Counts dropped records; the warning (with the running count) goes out at most once per interval. */
  private noteDropped(n: number): void {
    if (n <= 0) return;
    this.stats.dropped += n;
    this.droppedSinceWarning += n;
    const wait = this.lastWarnAt + this.warnIntervalMs - Date.now();
    if (wait <= 0) this.warnDropped();
    else if (!this.warnTimer && !this.closed) this.warnTimer = setTimeout(() => this.warnDropped(), wait);
  }

  private warnDropped(): void {
    if (this.warnTimer) {
      clearTimeout(this.warnTimer);
      this.warnTimer = null;
    }
    if (!this.droppedSinceWarning) return;
    this.logger.warn('usage buffer full: records dropped', {
      overflow: this.overflow,
      max_buffered: this.opts.maxBuffered,
      dropped: this.droppedSinceWarning,
      total_dropped: this.stats.dropped,
    });
    this.droppedSinceWarning = 0;
    this.lastWarnAt = Date.now();
  }

  private flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    while (this.queue.length) {
      const records = this.queue.splice(0, this.opts.batchSize);
      const batch: UsageBatch = { batch_id: `${Date.now().toString(36)}-${(this.seq++).toString(36)}-${crypto.randomUUID().slice(0, 8)}`, records };
      this.inflight.set(batch.batch_id, batch);
      if (this.connected && this.stream) this.stream.write(batch);
    }
  }

  private connect(): void {
    if (this.closed) return;
    this.reconnectTimer = null;
    const stream = this.channel.open({
      onAck: (ack) => this.onAck(ack),
      onClose: (error) => {
        if (this.stream !== stream) return;
        this.stream = null;
        this.connected = false;
        if (this.closed) return;
        if (error) this.logger.warn('usage stream closed', { error: String(error), awaiting_ack: this.inflight.size });
        this.reconnectTimer = setTimeout(() => this.connect(), this.backoff);
        this.backoff = Math.min(this.backoff * 2, this.opts.reconnectMaxMs ?? 5_000);
      },
    });
    this.stream = stream;
    this.connected = true;
    // Resend everything not yet acknowledged, oldest first.
    for (const batch of this.inflight.values()) stream.write(batch);
  }

  private onAck(ack: ReportAck): void {
    const batch = this.inflight.get(ack.batch_id);
    if (!batch) return;
    this.inflight.delete(ack.batch_id);
    this.held -= batch.records.length;
    this.stats.acknowledged += batch.records.length;
    this.backoff = this.opts.reconnectMinMs ?? 100;
    if (this.isIdle()) for (const w of this.idleWaiters.splice(0)) w();
  }
}
