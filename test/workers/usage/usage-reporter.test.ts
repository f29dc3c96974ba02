import { describe, it, expect } from 'vitest';
import { silentLogger } from '../../../src/domain/logger.ts';
import type { ReportAck, UsageBatch, UsageRecord } from '../../../src/domain/usage-record.ts';
import type { ReportChannel } from '../../../workers/contracts.ts';
import { UsageReporter } from '../../../workers/usage/usage-reporter.ts';

const record = (i: number): UsageRecord => ({
  idempotency_id: `r${i}:0`, request_id: `r${i}`, attempt: 0, trace_id: `t${i}`, organisation_id: 'o', workspace_id: 'w',
  api_key_id: 'k', provider: 'openai', model: 'm', endpoint: 'chat.completions', method: 'POST', status: 200,
  started_at_ms: 0, latency_ms: 1, upstream_latency_ms: 1, prompt_tokens: 1, completion_tokens: 1, total_tokens: 2,
  is_stream: false, error_code: '', metadata_json: '',
});

/** A fake Report stream: the test decides when batches are acknowledged and when the stream breaks. */
function fakeChannel() {
  const opened: { batches: UsageBatch[]; ack(id: string): void; fail(): void }[] = [];
  const channel: ReportChannel = {
    open(h) {
      const s = {
        batches: [] as UsageBatch[],
        ack: (id: string) => h.onAck({ batch_id: id, stored: 1, duplicates: 0, rejected: 0 } as ReportAck),
        fail: () => h.onClose(new Error('broken')),
      };
      opened.push(s);
      return { write: (b) => s.batches.push(b), end: () => {} };
    },
  };
  return { channel, opened };
}

const until = async (cond: () => boolean) => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(cond()).toBe(true);
};

describe('UsageReporter', () => {
  it('batches records and counts them acknowledged', async () => {
    const f = fakeChannel();
    const r = new UsageReporter(f.channel, { batchSize: 2, flushIntervalMs: 5, maxBuffered: 100 }, silentLogger);
    r.start();
    for (let i = 0; i < 5; i++) r.push(record(i));
    await until(() => f.opened[0]!.batches.length === 3);
    expect(f.opened[0]!.batches.map((b) => b.records.length)).toEqual([2, 2, 1]);
    for (const b of f.opened[0]!.batches) f.opened[0]!.ack(b.batch_id);
    expect(r.snapshot()).toMatchObject({ acknowledged: 5, awaitingAck: 0, queued: 0, dropped: 0 });
    await r.close(100);
  });

  it('resends unacknowledged batches, with the same ids, after the stream breaks', async () => {
    const f = fakeChannel();
    const r = new UsageReporter(f.channel, { batchSize: 10, flushIntervalMs: 1, maxBuffered: 100, reconnectMinMs: 1 }, silentLogger);
    r.start();
    r.push(record(1));
    r.push(record(2));
    await until(() => f.opened[0]!.batches.length === 1);
    const first = f.opened[0]!.batches[0]!;
    f.opened[0]!.fail();
    await until(() => f.opened.length === 2 && f.opened[1]!.batches.length === 1);
    expect(f.opened[1]!.batches[0]).toEqual(first);
    f.opened[1]!.ack(first.batch_id);
    expect(await r.drain(100)).toBe(true);
    expect(r.snapshot().acknowledged).toBe(2);
    await r.close(100);
  });

  it('drops the oldest records beyond the bound and counts them', async () => {
    const f = fakeChannel();
    const r = new UsageReporter(f.channel, { batchSize: 1000, flushIntervalMs: 10_000, maxBuffered: 3 }, silentLogger);
    r.start();
    for (let i = 0; i < 5; i++) r.push(record(i));
    expect(r.snapshot()).toMatchObject({ queued: 3, dropped: 2 });
    expect(await r.drain(20)).toBe(false); // never acknowledged
    expect(f.opened[0]!.batches[0]!.records.map((x) => x.request_id)).toEqual(['r2', 'r3', 'r4']);
    await r.close(10);
  });
});
