// AWS binary event-stream framing (application/vnd.amazon.eventstream), used by Bedrock's
// ConverseStream and InvokeModelWithResponseStream. Each message:
//   total length u32 BE | headers length u32 BE | prelude CRC32 (of the 8 bytes before)
//   | headers | payload | message CRC32 (of everything before it)
// A header is: name length u8, name, value type u8, value (strings: u16 BE length + UTF-8).
// Frames may arrive split anywhere; both CRCs are checked.

const PRELUDE = 12;
const CRC = 4;
/** AWS caps a message at 16 MiB; a larger length means a corrupt stream. */
const MAX_MESSAGE = 16 * 1024 * 1024;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (IEEE 802.3, as zlib), the checksum the framing uses. */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = 0xffffffff;
  for (let i = start; i < end; i++) crc = CRC_TABLE[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

export type HeaderValue = string | number | boolean | bigint | Uint8Array;

export interface EventMessage {
  headers: Record<string, HeaderValue>;
  payload: Uint8Array;
}

export class EventStreamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EventStreamError';
  }
}

const utf8 = new TextDecoder();

function parseHeaders(bytes: Uint8Array, view: DataView): Record<string, HeaderValue> {
  const headers: Record<string, HeaderValue> = {};
  let at = 0;
  const need = (n: number): void => {
    if (at + n > bytes.length) throw new EventStreamError('event-stream header overruns its section');
  };
  while (at < bytes.length) {
    need(1);
    const nameLength = bytes[at]!;
    at += 1;
    need(nameLength + 1);
    const name = utf8.decode(bytes.subarray(at, at + nameLength));
    at += nameLength;
    const type = bytes[at]!;
    at += 1;
    let value: HeaderValue;
    switch (type) {
      case 0:
      case 1:
        value = type === 0;
        break;
      case 2:
        need(1);
        value = view.getInt8(at);
        at += 1;
        break;
      case 3:
        need(2);
        value = view.getInt16(at);
        at += 2;
        break;
      case 4:
        need(4);
        value = view.getInt32(at);
        at += 4;
        break;
      case 5:
      case 8: // timestamp: ms since epoch
        need(8);
        value = view.getBigInt64(at);
        at += 8;
        break;
      case 6:
      case 7: {
        need(2);
        const length = view.getUint16(at);
        at += 2;
        need(length);
        const raw = bytes.subarray(at, at + length);
        value = type === 7 ? utf8.decode(raw) : raw.slice();
        at += length;
        break;
      }
      case 9:
        need(16);
        value = bytes.slice(at, at + 16);
        at += 16;
        break;
      default:
        throw new EventStreamError(`unknown event-stream header type ${type}`);
    }
    headers[name] = value;
  }
  return headers;
}

/** Reassembles whole messages from byte chunks. Throws EventStreamError on a corrupt frame. */
export class EventStreamDecoder {
  private buffer = new Uint8Array(0);

  push(chunk: Uint8Array): EventMessage[] {
    if (chunk.length > 0) {
      const joined = new Uint8Array(this.buffer.length + chunk.length);
      joined.set(this.buffer);
      joined.set(chunk, this.buffer.length);
      this.buffer = joined;
    }
    const out: EventMessage[] = [];
    const view = new DataView(this.buffer.buffer, this.buffer.byteOffset, this.buffer.byteLength);
    // Walk the buffer by offset and keep the remainder once, so a chunk of many small frames
    // is not copied once per frame.
    let at = 0;
    while (this.buffer.length - at >= PRELUDE) {
      const total = view.getUint32(at);
      const headersLength = view.getUint32(at + 4);
      if (crc32(this.buffer, at, at + 8) !== view.getUint32(at + 8)) throw new EventStreamError('event-stream prelude CRC mismatch');
      if (total < PRELUDE + CRC || total > MAX_MESSAGE || headersLength > total - PRELUDE - CRC) {
        throw new EventStreamError(`event-stream message length ${total} is invalid`);
      }
      if (this.buffer.length - at < total) break;
      const end = at + total;
      if (crc32(this.buffer, at, end - CRC) !== view.getUint32(end - CRC)) throw new EventStreamError('event-stream message CRC mismatch');
      const headerBytes = this.buffer.subarray(at + PRELUDE, at + PRELUDE + headersLength);
      const headers = parseHeaders(headerBytes, new DataView(headerBytes.buffer, headerBytes.byteOffset, headerBytes.byteLength));
      out.push({ headers, payload: this.buffer.slice(at + PRELUDE + headersLength, end - CRC) });
      at = end;
    }
    if (at > 0) this.buffer = this.buffer.slice(at);
    return out;
  }

  /** Bytes of an incomplete message left at the end of the stream. */
  get pending(): number {
    return this.buffer.length;
  }
}
