// A server-sent-events reader that tolerates bytes split anywhere: inside a UTF-8 character
// (TextDecoder in stream mode), inside a line, or between `\r` and `\n`.

export interface SseEvent {
  event: string | null;
  data: string;
}

export class SseReader {
  private readonly decoder = new TextDecoder();
  private buffer = '';
  private event: string | null = null;
  private data: string[] = [];

  push(chunk: Uint8Array): SseEvent[] {
    this.buffer += this.decoder.decode(chunk, { stream: true });
    return this.drain(false);
  }

  end(): SseEvent[] {
    this.buffer += this.decoder.decode();
    const out = this.drain(true);
    // A last event without its blank line still counts (the upstream closed).
    const last = this.dispatch();
    if (last) out.push(last);
    return out;
  }

  private drain(final: boolean): SseEvent[] {
    const out: SseEvent[] = [];
    let start = 0;
    // The next `\r` is searched again only once passed, so a chunk of many lines stays linear.
    let cr = this.buffer.indexOf('\r');
    for (;;) {
      const lf = this.buffer.indexOf('\n', start);
      if (cr >= 0 && cr < start) cr = this.buffer.indexOf('\r', start);
      const eol = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
      if (eol < 0) break;
      let next = eol + 1;
      if (this.buffer[eol] === '\r') {
        // `\r` at the very end may be the first half of `\r\n`: wait for more bytes.
        if (eol === this.buffer.length - 1 && !final) break;
        if (this.buffer[eol + 1] === '\n') next = eol + 2;
      }
      const line = this.buffer.slice(start, eol);
      start = next;
      const ev = this.line(line);
      if (ev) out.push(ev);
    }
    this.buffer = this.buffer.slice(start);
    if (final && this.buffer.length > 0) {
      const ev = this.line(this.buffer);
      this.buffer = '';
      if (ev) out.push(ev);
    }
    return out;
  }

  private line(line: string): SseEvent | null {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    return null;
  }

  private dispatch(): SseEvent | null {
    const ev = this.data.length > 0 ? { event: this.event, data: this.data.join('\n') } : null;
    this.event = null;
    this.data = [];
    return ev;
  }
}

/** One SSE `data:` frame with a JSON payload. */
export const sseData = (payload: unknown): string => `data: ${JSON.stringify(payload)}\n\n`;
export const SSE_DONE = 'data: [DONE]\n\n';
