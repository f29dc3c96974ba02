import { describe, it, expect } from 'vitest';
import { RealtimeUsageTap } from '../../../workers/endpoints/realtime.ts';

function frame(opcode: number, payload: Buffer, fin = true): Buffer {
  const b0 = (fin ? 0x80 : 0) | opcode;
  if (payload.length < 126) return Buffer.concat([Buffer.from([b0, payload.length]), payload]);
  if (payload.length < 65536) return Buffer.concat([Buffer.from([b0, 126, payload.length >> 8, payload.length & 0xff]), payload]);
  const head = Buffer.alloc(10);
  head[0] = b0;
  head[1] = 127;
  head.writeBigUInt64BE(BigInt(payload.length), 2);
  return Buffer.concat([head, payload]);
}
const done = (i: number, o: number) => Buffer.from(JSON.stringify({ type: 'response.done', response: { usage: { input_tokens: i, output_tokens: o, total_tokens: i + o } } }));

describe('RealtimeUsageTap', () => {
  it('adds up response.done usage across frames split anywhere, fragmented messages and all length forms', () => {
    const big = Buffer.from(JSON.stringify({ type: 'response.audio.delta', delta: 'x'.repeat(70_000) }));
    const d2 = done(3, 4);
    const bytes = Buffer.concat([
      frame(1, Buffer.from('{"type":"session.created"}')),
      frame(1, big),
      frame(2, Buffer.from([1, 2, 3])),
      frame(1, done(10, 20)),
      frame(1, d2.subarray(0, 5), false),
      frame(9, Buffer.alloc(0)), // a ping between fragments
      frame(0, d2.subarray(5)),
    ]);
    const tap = new RealtimeUsageTap();
    for (let i = 0; i < bytes.length; i += 7) tap.push(bytes.subarray(i, i + 7));
    expect(tap.tokens).toEqual({ prompt: 13, completion: 24, total: 37 });
  });
});
