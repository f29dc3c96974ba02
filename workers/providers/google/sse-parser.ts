// Incremental Server-Sent Events parser (WHATWG "event stream" rules, enough for providers):
// bytes may split anywhere, including inside a UTF-8 character or a CRLF pair.

export interface SseEvent {
  event: string | undefined;
  data: string;
}

export class SseParser {
  private readonly decoder = new TextDecoder();
  private buffer = '';
  private event: string | undefined;
  private data: string[] = [];

  /** Complete events found in this chunk. */
  push(chunk: Uint8Array): SseEvent[] {
    this.buffer += this.decoder.decode(chunk, { stream: true });
    return this.drain(false);
  }

  /** The stream ended: the last event counts even without its blank line. */
  end(): SseEvent[] {
    this.buffer += this.decoder.decode();
    return this.drain(true);
  }

  private drain(final: boolean): SseEvent[] {
    const out: SseEvent[] = [];
    const text = this.buffer;
    // Scan by position and keep the unfinished line once (no copy per line).
    let at = 0;
    for (;;) {
      let nl = -1;
      for (let i = at; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === 10 || c === 13) {
          nl = i;
          break;
        }
      }
      if (nl < 0) break;
      // A lone trailing \r may be the first half of \r\n: wait for the next byte.
      if (text.charCodeAt(nl) === 13 && nl === text.length - 1 && !final) break;
      const width = text.charCodeAt(nl) === 13 && text.charCodeAt(nl + 1) === 10 ? 2 : 1;
      this.line(text.slice(at, nl), out);
      at = nl + width;
    }
    this.buffer = at > 0 ? text.slice(at) : text;
    if (final) {
      if (this.buffer) this.line(this.buffer, out);
      this.buffer = '';
      this.line('', out);
    }
    return out;
  }

  private line(line: string, out: SseEvent[]): void {
    if (line === '') {
      if (this.data.length > 0) out.push({ event: this.event, data: this.data.join('\n') });
      this.data = [];
      this.event = undefined;
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
  }
}
