import { describe, expect, it } from 'vitest';
import { SseParser } from '../../../../workers/providers/google/sse-parser.ts';

const enc = new TextEncoder();

describe('SseParser', () => {
  it('handles LF, CRLF and CR line ends, comments, event names and multi-line data', () => {
    const p = new SseParser();
    const events = p.push(enc.encode(': keep-alive\n\nevent: a\ndata: 1\ndata: 2\n\ndata:3\r\n\r\ndata: 4\r\r'));
    expect(events).toEqual([
      { event: 'a', data: '1\n2' },
      { event: undefined, data: '3' },
    ]);
    // The final CR could still be followed by LF: the event completes with the next byte or the end.
    expect(p.end()).toEqual([{ event: undefined, data: '4' }]);
  });

  it('waits when a chunk ends between CR and LF', () => {
    const p = new SseParser();
    expect(p.push(enc.encode('data: x\r'))).toEqual([]);
    expect(p.push(enc.encode('\n\r'))).toEqual([]);
    expect(p.push(enc.encode('\n'))).toEqual([{ event: undefined, data: 'x' }]);
  });

  it('decodes a UTF-8 character split across chunks and flushes a last unterminated event', () => {
    const p = new SseParser();
    const bytes = enc.encode('data: €');
    expect(p.push(bytes.subarray(0, bytes.length - 1))).toEqual([]);
    expect(p.push(bytes.subarray(bytes.length - 1))).toEqual([]);
    expect(p.end()).toEqual([{ event: undefined, data: '€' }]);
  });
});
