import { describe, expect, it } from 'vitest';
import { crc32, EventStreamDecoder, EventStreamError } from '../../../../workers/providers/bedrock/event-stream.ts';
import { eventFrame } from '../../../support/mock-bedrock.ts';

const utf8 = new TextDecoder();

describe('AWS event-stream decoding', () => {
  it('computes the IEEE CRC-32 (check value of "123456789")', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
  });

  it('reassembles messages split at every byte, headers and payload intact', () => {
    const a = eventFrame({ ':event-type': 'contentBlockDelta', ':message-type': 'event' }, Buffer.from('{"delta":{"text":"héllo ✓"}}'));
    const b = eventFrame({ ':event-type': 'messageStop' }, Buffer.from('{"stopReason":"end_turn"}'));
    const all = Buffer.concat([a, b]);
    const decoder = new EventStreamDecoder();
    const messages = [];
    for (let i = 0; i < all.length; i++) messages.push(...decoder.push(all.subarray(i, i + 1)));
    expect(messages).toHaveLength(2);
    expect(messages[0]!.headers).toEqual({ ':event-type': 'contentBlockDelta', ':message-type': 'event' });
    expect(utf8.decode(messages[0]!.payload)).toBe('{"delta":{"text":"héllo ✓"}}');
    expect(messages[1]!.headers[':event-type']).toBe('messageStop');
    expect(decoder.pending).toBe(0);
  });

  it('decodes several messages from one chunk and keeps a partial one pending', () => {
    const a = eventFrame({ ':event-type': 'a' }, Buffer.from('{}'));
    const decoder = new EventStreamDecoder();
    expect(decoder.push(Buffer.concat([a, a, a.subarray(0, 7)]))).toHaveLength(2);
    expect(decoder.pending).toBe(7);
    expect(decoder.push(a.subarray(7))).toHaveLength(1);
  });

  it('reads non-string header types (bool, int32, int64, bytes)', () => {
    const headers = Buffer.concat([
      Buffer.from([4]), Buffer.from('flag'), Buffer.from([0]),
      Buffer.from([3]), Buffer.from('num'), Buffer.from([4, 0, 0, 1, 0]),
      Buffer.from([4]), Buffer.from('long'), Buffer.from([5, 0, 0, 0, 0, 0, 0, 0, 9]),
      Buffer.from([3]), Buffer.from('raw'), Buffer.from([6, 0, 2, 0xab, 0xcd]),
    ]);
    const total = 12 + headers.length + 4;
    const frame = Buffer.alloc(total);
    frame.writeUInt32BE(total, 0);
    frame.writeUInt32BE(headers.length, 4);
    frame.writeUInt32BE(crc32(frame, 0, 8), 8);
    headers.copy(frame, 12);
    frame.writeUInt32BE(crc32(frame, 0, total - 4), total - 4);
    const [m] = new EventStreamDecoder().push(frame);
    expect(m!.headers.flag).toBe(true);
    expect(m!.headers.num).toBe(256);
    expect(m!.headers.long).toBe(9n);
    expect([...(m!.headers.raw as Uint8Array)]).toEqual([0xab, 0xcd]);
    expect(m!.payload.length).toBe(0);
  });

  it('rejects a message whose CRC does not match', () => {
    const frame = eventFrame({ ':event-type': 'x' }, Buffer.from('{"a":1}'), true);
    expect(() => new EventStreamDecoder().push(frame)).toThrow(/message CRC/);
  });

  it('rejects a corrupt prelude before waiting for a bogus length', () => {
    const frame = eventFrame({ ':event-type': 'x' }, Buffer.from('{}'));
    frame[1] = 0x7f; // total length now huge; the prelude CRC catches it
    const decoder = new EventStreamDecoder();
    expect(() => decoder.push(frame.subarray(0, 12))).toThrow(EventStreamError);
  });
});
