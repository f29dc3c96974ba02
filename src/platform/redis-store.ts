// The Redis factory: one ioredis client per process, failing fast instead of queueing
// commands while Redis is away, so a request never waits on a dead connection.
import { Redis } from 'ioredis';
import type { SharedStore } from '../domain/store.ts';

export interface RedisStoreOptions {
  url: string;
  /** Prefix of every key, e.g. `gw:`; tests use their own. */
  keyPrefix?: string;
  commandTimeoutMs?: number;
}

export class RedisStore implements SharedStore {
  readonly kind = 'redis' as const;
  readonly client: Redis;

  constructor(opts: RedisStoreOptions) {
    this.client = new Redis(opts.url, {
      keyPrefix: opts.keyPrefix ?? 'gw:',
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: opts.commandTimeoutMs ?? 500,
      retryStrategy: (times) => Math.min(times * 200, 5_000),
      lazyConnect: false,
    });
    this.client.on('error', () => {}); // state is read from client.status; commands reject on their own
  }

  get reachable(): boolean {
    return this.client.status === 'ready';
  }

  get(key: string): Promise<string | null> {
    return this.client.get(key);
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    await this.client.set(key, value, 'PX', Math.max(1, Math.round(ttlMs)));
  }

  async del(key: string): Promise<void> {
    await this.client.del(key);
  }

  async close(): Promise<void> {
    this.client.disconnect();
  }
}
