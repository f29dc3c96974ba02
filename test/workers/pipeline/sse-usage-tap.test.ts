import { describe, it, expect } from 'vitest';
import { SseUsageTap } from '../../../workers/pipeline/sse-usage-tap.ts';

const enc = new TextEncoder();
const dec = new TextDecoder();
const ev = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;
const content = ev({ choices: [{ index: 0, delta: { content: 'Hi' } }], usage: null });
const usage = ev({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } });

function run(tap: SseUsageTap, chunks: string[]): string {
  let out = '';
  for (const c of chunks) {
    const b = tap.push(enc.encode(c));
    if (b) out += dec.decode(b);
  }
  const rest = tap.end();
  if (rest) out += dec.decode(rest);
  return out;
}

describe('SseUsageTap', () => {
  it('passes events through unchanged and reads the usage chunk', () => {
    const tap = new SseUsageTap({ hideUsageChunk: false });
    const all = content + usage + 'data: [DONE]\n\n';
    expect(run(tap, [all])).toBe(all);
    expect(tap.tokens).toEqual({ prompt: 5, completion: 3, total: 8 });
  });

  it('hides the usage-only chunk the gateway asked for', () => {
    const tap = new SseUsageTap({ hideUsageChunk: true });
    expect(run(tap, [content, usage, 'data: [DONE]\n\n'])).toBe(content + 'data: [DONE]\n\n');
    expect(tap.tokens?.total).toBe(8);
  });

  it('emits each event as soon as it is complete, across arbitrary chunk splits', () => {
    const tap = new SseUsageTap({ hideUsageChunk: false });
    const all = content + usage;
    const first = tap.push(enc.encode(all.slice(0, 10)));
    expect(first).toBeNull(); // mid-event: held only until the event ends
    const second = tap.push(enc.encode(all.slice(10, content.length + 3)));
    expect(dec.decode(second!)).toBe(content);
    const third = tap.push(enc.encode(all.slice(content.length + 3)));
    expect(dec.decode(third!)).toBe(usage);
    expect(tap.tokens?.prompt).toBe(5);
  });

  it('handles CRLF event endings and multi-byte characters split across chunks', () => {
    const tap = new SseUsageTap({ hideUsageChunk: false });
    const text = 'data: {"choices":[{"delta":{"content":"héllo €"}}]}\r\n\r\n';
    const bytes = enc.encode(text);
    const out = [tap.push(bytes.slice(0, 45)), tap.push(bytes.slice(45))].filter(Boolean).map((b) => dec.decode(b!)).join('');
    expect(out).toBe(text);
  });
});
