import { tokensFromUsage, type Tokens } from './tokens.ts';

export interface UsageTapOptions {
  /** The gateway asked for usage on the caller's behalf: hide the extra usage-only chunk from the caller. */
  hideUsageChunk: boolean;
}

const EVENT_END = /\r?\n\r?\n/;

/**
 * Reads an OpenAI-style SSE stream event by event as each event completes (no added delay)
 * and picks up the final usage chunk on the way (ARCHITECTURE.md, step 6).
 */
export class SseUsageTap {
  tokens: Tokens | null = null;
  private readonly decoder = new TextDecoder();
  private readonly encoder = new TextEncoder();
  private pending = '';

  constructor(private readonly opts: UsageTapOptions) {}

  /** Bytes to pass on now (complete events), or null when the chunk ended mid-event. */
  push(chunk: Uint8Array): Uint8Array | null {
    this.pending += this.decoder.decode(chunk, { stream: true });
    let out = '';
    for (;;) {
      const m = EVENT_END.exec(this.pending);
      if (!m) break;
      const end = m.index + m[0].length;
      const event = this.pending.slice(0, end);
      this.pending = this.pending.slice(end);
      if (this.inspect(event)) out += event;
    }
    return out ? this.encoder.encode(out) : null;
  }

  /** Whatever is left when the upstream ends. */
  end(): Uint8Array | null {
    const rest = this.pending + this.decoder.decode();
    this.pending = '';
    return rest && this.inspect(rest) ? this.encoder.encode(rest) : null;
  }

  private inspect(event: string): boolean {
    // Cheap test first: only events that carry a usage object are parsed.
    if (!event.includes('"usage":{') && !event.includes('"usage": {')) return true;
    const data = event
      .split(/\r?\n/)
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trimStart())
      .join('\n');
    if (!data || data === '[DONE]') return true;
    try {
      const chunk = JSON.parse(data) as { usage?: unknown; choices?: unknown[]; response?: { usage?: unknown } | null };
      // Chat and completions chunks carry `usage`; Responses API events carry `response.usage`.
      const tokens = tokensFromUsage(chunk.usage ?? chunk.response?.usage);
      if (tokens) this.tokens = tokens;
      return !(this.opts.hideUsageChunk && Array.isArray(chunk.choices) && chunk.choices.length === 0);
    } catch {
      return true;
    }
  }
}
