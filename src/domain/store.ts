// What workers share (ARCHITECTURE.md Storage): Redis in production, an in-process
// implementation of the same interface in the embedded default and for a lone worker.

export interface SharedStore {
  readonly kind: 'redis' | 'memory';
  get(key: string): Promise<string | null>;
  /** Sets with a time to live in milliseconds. */
  set(key: string, value: string, ttlMs: number): Promise<void>;
  del(key: string): Promise<void>;
  close(): Promise<void>;
}

/** The in-process store: a Map with expiry, evicting the oldest entries past `maxEntries`. */
export class MemoryStore implements SharedStore {
  readonly kind = 'memory' as const;
  private readonly entries = new Map<string, { value: string; expiresAt: number }>();

  constructor(private readonly maxEntries = 100_000, private readonly now: () => number = Date.now) {}

  async get(key: string): Promise<string | null> {
    const e = this.entries.get(key);
    if (!e) return null;
    if (e.expiresAt <= this.now()) {
      this.entries.delete(key);
      return null;
    }
    return e.value;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
  }

  async del(key: string): Promise<void> {
    this.entries.delete(key);
  }

  async close(): Promise<void> {
    this.entries.clear();
  }
}
