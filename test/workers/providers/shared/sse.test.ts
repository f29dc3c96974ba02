import { describe, expect, it } from 'vitest';
import { SseReader } from '../../../../workers/providers/shared/sse.ts';

const enc = new TextEncoder();
function read(text: string, size: number) {
  const r = new SseReader();
  const bytes = enc.encode(text);
  const out = [];
  for (let i = 0; i < bytes.length; i += size) out.push(...r.push(bytes.slice(i, i + size)));
  return [...out, ...r.end()];
}

describe('SseReader', () => {
  it('reads LF, CRLF (split between \\r and \\n) and CR line endings alike', () => {
    const want = [
      { event: 'a', data: '{"x":"é"}' },
      { event: null, data: 'line1\nline2' },
    ];
    for (const eol of ['\n', '\r\n', '\r'])
      for (const size of [1, 2, 3, 1000]) {
        const text = [': comment', 'event: a', 'data: {"x":"é"}', '', 'data: line1', 'data:line2', '', ''].join(eol);
        expect(read(text, size)).toEqual(want);
      }
  });

  it('keeps a last event the upstream closed without a blank line; ignores events without data', () => {
    expect(read('event: ping\n\ndata: tail', 4)).toEqual([{ event: null, data: 'tail' }]);
  });
});
