import type { Logger } from '../../src/domain/logger.ts';
import { API_KEY_RESOURCE, type ResourceEvent } from '../../src/domain/sync-codec.ts';
import type { WatchChannel, WatchStream } from '../contracts.ts';
import type { KeyCache } from './key-cache.ts';
import type { ResourceCache } from './resource-cache.ts';

export interface KeyWatcherOptions {
  workerId: string;
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
  /** Held resources per message when (re)subscribing (default 5 000). */
  heldChunk?: number;
  /** Acknowledgements are coalesced over this long (default 10 ms). */
  ackDelayMs?: number;
  /** Providers, configs, guardrails, policies: other resource types go here. */
  resources?: ResourceCache;
}

export interface KeyWatcherStats {
  connected: boolean;
  /** The highest change version applied (sent as since_version on reconnect). */
  appliedVersion: number;
  events: number;
  resets: number;
  reconnects: number;
  /** Epoch ms since the stream has been down (null while connected). */
  disconnectedSinceMs: number | null;
}

/**
 * Keeps the Watch stream open (reconnecting with backoff) and applies what it carries to the
 * key cache, acknowledging the highest version applied. On every (re)subscribe it sends the
 * version it reached and the keys it holds, so it gets what it missed (ARCHITECTURE.md: Watch).
 */
export class KeyWatcher {
  private stream: WatchStream | null = null;
  private connected = false;
  private applied = 0;
  private acked = 0;
  private closed = false;
  private backoff: number;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private ackTimer: ReturnType<typeof setTimeout> | null = null;
  private openedAt = 0;
  private stats = { events: 0, resets: 0, reconnects: 0 };
  private disconnectedSince: number | null = Date.now();

  constructor(
    private readonly channel: WatchChannel,
    private readonly keys: KeyCache,
    private readonly opts: KeyWatcherOptions,
    private readonly logger: Logger,
  ) {
    this.backoff = opts.reconnectMinMs ?? 100;
  }

  start(): void {
    this.connect();
  }

  snapshot(): KeyWatcherStats {
    return { connected: this.connected, appliedVersion: this.applied, ...this.stats, disconnectedSinceMs: this.connected ? null : this.disconnectedSince };
  }

  close(): void {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    if (this.ackTimer) clearTimeout(this.ackTimer);
    this.stream?.end();
    this.stream = null;
    this.connected = false;
  }

  private connect(): void {
    if (this.closed) return;
    this.reconnectTimer = null;
    const held = [...this.keys.held(), ...(this.opts.resources?.held() ?? [])];
    const chunk = this.opts.heldChunk ?? 5_000;
    this.openedAt = Date.now();
    this.acked = 0; // acknowledgements are per stream
    const stream = this.channel.watch(
      { workerId: this.opts.workerId, sinceVersion: this.applied, held: held.slice(0, chunk) },
      {
        onOpen: () => {
          if (this.stream === stream) this.markConnected();
        },
        onEvent: (event) => {
          if (this.stream === stream) this.onEvent(event);
        },
        onClose: (error) => {
          if (this.stream !== stream) return;
          this.stream = null;
          this.connected = false;
          this.disconnectedSince = Date.now();
          if (this.closed) return;
          // A stream that lived a while was healthy: reconnect fast. Quick failures back off.
          if (Date.now() - this.openedAt >= (this.opts.reconnectMaxMs ?? 5_000)) this.backoff = this.opts.reconnectMinMs ?? 100;
          if (error) this.logger.warn('watch stream closed', { error: String(error), retry_ms: this.backoff });
          this.stats.reconnects++;
          this.reconnectTimer = setTimeout(() => this.connect(), this.backoff);
          this.backoff = Math.min(this.backoff * 2, this.opts.reconnectMaxMs ?? 5_000);
        },
      },
    );
    this.stream = stream;
    for (let i = chunk; i < held.length; i += chunk) stream.sendHeld(held.slice(i, i + chunk));
  }

  private markConnected(): void {
    this.connected = true;
    this.disconnectedSince = null;
  }

  private onEvent(event: ResourceEvent): void {
    this.markConnected();
    this.keys.apply(event);
    if (event.resourceType !== API_KEY_RESOURCE) this.opts.resources?.apply(event);
    this.stats.events++;
    if (event.action === 'reset') {
      this.stats.resets++;
      this.applied = event.version;
      this.acked = 0;
      this.logger.info('key cache reset by the control plane', { version: event.version });
    } else if (event.version > this.applied) {
      this.applied = event.version;
    }
    if (this.applied > this.acked && !this.ackTimer) {
      this.ackTimer = setTimeout(() => {
        this.ackTimer = null;
        if (this.stream && this.applied > this.acked) {
          this.acked = this.applied;
          this.stream.ack(this.applied);
        }
      }, this.opts.ackDelayMs ?? 10);
    }
  }
}
