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
    for (;;) {
      const nl = this.buffer.search(/\r\n|\r|\n/);
      if (nl < 0) break;
      // A lone trailing \r may be the first half of \r\n: wait for the next byte.
      if (this.buffer[nl] === '\r' && nl === this.buffer.length - 1 && !final) break;
      const line = this.buffer.slice(0, nl);
      const width = this.buffer.startsWith('\r\n', nl) ? 2 : 1;
      this.buffer = this.buffer.slice(nl + width);
      this.line(line, out);
    }
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
