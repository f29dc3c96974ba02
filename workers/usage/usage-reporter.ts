import type { Logger } from '../../src/domain/logger.ts';
import type { ReportAck, UsageBatch, UsageRecord } from '../../src/domain/usage-record.ts';
import type { ReportChannel, ReportStream } from '../contracts.ts';

export interface UsageReporterOptions {
  batchSize: number;
  flushIntervalMs: number;
  /** Records held (queued + awaiting acknowledgement) before the oldest are dropped and counted. */
  maxBuffered: number;
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
}

export interface UsageReporterStats {
  queued: number;
  awaitingAck: number;
  acknowledged: number;
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

  constructor(private readonly channel: ReportChannel, private readonly opts: UsageReporterOptions, private readonly logger: Logger) {
    this.backoff = opts.reconnectMinMs ?? 100;
  }

  start(): void {
    this.connect();
  }

  /** Never blocks: the record is queued and sent by the next flush. */
  push(record: UsageRecord): void {
    if (this.closed) return;
    this.queue.push(record);
    this.enforceBound();
    if (this.queue.length >= this.opts.batchSize) this.flush();
    else if (!this.timer) this.timer = setTimeout(() => this.flush(), this.opts.flushIntervalMs);
  }

  snapshot(): UsageReporterStats {
    let awaiting = 0;
    for (const b of this.inflight.values()) awaiting += b.records.length;
    return { queued: this.queue.length, awaitingAck: awaiting, acknowledged: this.stats.acknowledged, dropped: this.stats.dropped, connected: this.connected };
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
    this.stream?.end();
    this.stream = null;
  }

  private isIdle(): boolean {
    return this.queue.length === 0 && this.inflight.size === 0;
  }

  private enforceBound(): void {
    let held = this.queue.length;
    for (const b of this.inflight.values()) held += b.records.length;
    const excess = held - this.opts.maxBuffered;
    if (excess > 0) {
      // Oldest unsent records go first; the loss is counted and reported, never silent.
      const n = Math.min(excess, this.queue.length);
      this.queue.splice(0, n);
      this.stats.dropped += n;
      this.logger.warn('usage buffer full: records dropped', { dropped: n, total_dropped: this.stats.dropped });
    }
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
    this.stats.acknowledged += batch.records.length;
    this.backoff = this.opts.reconnectMinMs ?? 100;
    if (this.isIdle()) for (const w of this.idleWaiters.splice(0)) w();
  }
}
