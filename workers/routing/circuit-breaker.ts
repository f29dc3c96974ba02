// Circuit breaker per target (issue 7 item 7): opens after a share of failures in a window,
// skips the target while open, lets one probe through when the cooldown ends (half-open), and
// closes on the probe's success. Deciding is local (no round trip on the request's path); an
// open breaker is published to the shared store so every worker skips the target too.
import type { SharedStore } from '../../src/domain/store.ts';

export interface BreakerSettings {
  /** Share of failures in the window that opens the breaker (0..1). */
  failureRatio: number;
  /** Fewer calls than this in the window never open it. */
  minCalls: number;
  windowMs: number;
  /** How long it stays open before a probe. */
  cooldownMs: number;
}

export const DEFAULT_BREAKER: BreakerSettings = { failureRatio: 0.5, minCalls: 10, windowMs: 30_000, cooldownMs: 30_000 };

type State = 'closed' | 'open' | 'half-open';

interface Circuit {
  state: State;
  windowStart: number;
  calls: number;
  failures: number;
  openUntil: number;
  probing: boolean;
}

const PREFIX = 'cb:';

export class CircuitBreaker {
  private readonly circuits = new Map<string, Circuit>();
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly settings: BreakerSettings = DEFAULT_BREAKER,
    private readonly shared: SharedStore | null = null,
    private readonly now: () => number = Date.now,
  ) {}

  /** Reads what other workers opened, every `intervalMs`, for the targets this worker uses. */
  startSync(intervalMs = 1_000): void {
    if (!this.shared || this.timer) return;
    this.timer = setInterval(() => void this.sync(), intervalMs);
    (this.timer as { unref?: () => void }).unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** May this target be called now? A half-open circuit lets exactly one probe through. */
  allow(id: string): boolean {
    // Known from now on, so sync() also learns when another worker opens it.
    const c = this.circuit(id, this.now());
    if (c.state === 'closed') return true;
    if (c.state === 'open') {
      if (this.now() < c.openUntil) return false;
      c.state = 'half-open';
      c.probing = false;
    }
    if (c.probing) return false;
    c.probing = true;
    return true;
  }

  record(id: string, ok: boolean): void {
    const now = this.now();
    const c = this.circuit(id, now);
    if (c.state === 'half-open') {
      if (ok) {
        this.circuits.set(id, this.fresh(now));
        void this.shared?.del(PREFIX + id).catch(() => {});
      } else {
        this.open(id, c, now);
      }
      return;
    }
    if (c.state === 'open') return;
    if (now - c.windowStart >= this.settings.windowMs) Object.assign(c, { windowStart: now, calls: 0, failures: 0 });
    c.calls++;
    if (!ok) c.failures++;
    if (c.calls >= this.settings.minCalls && c.failures / c.calls >= this.settings.failureRatio) this.open(id, c, now);
  }

  state(id: string): State {
    const c = this.circuits.get(id);
    if (!c) return 'closed';
    if (c.state === 'open' && this.now() >= c.openUntil) return 'half-open';
    return c.state;
  }

  /** Pulls breakers other workers opened (also called by the timer). */
  async sync(): Promise<void> {
    if (!this.shared) return;
    const now = this.now();
    await Promise.all(
      [...this.circuits.entries()].map(async ([id, c]) => {
        if (c.state === 'open') return;
        const until = Number(await this.shared!.get(PREFIX + id).catch(() => null));
        if (Number.isFinite(until) && until > now) Object.assign(c, { state: 'open', openUntil: until, probing: false });
      }),
    );
  }

  private open(id: string, c: Circuit, now: number): void {
    Object.assign(c, { state: 'open', openUntil: now + this.settings.cooldownMs, probing: false });
    void this.shared?.set(PREFIX + id, String(c.openUntil), this.settings.cooldownMs).catch(() => {});
  }

  private circuit(id: string, now: number): Circuit {
    let c = this.circuits.get(id);
    if (!c) {
      if (this.circuits.size >= 10_000) this.circuits.delete(this.circuits.keys().next().value!);
      c = this.fresh(now);
      this.circuits.set(id, c);
    }
    if (c.state === 'open' && now >= c.openUntil) c.state = 'half-open';
    return c;
  }

  private fresh(now: number): Circuit {
    return { state: 'closed', windowStart: now, calls: 0, failures: 0, openUntil: 0, probing: false };
  }
}
