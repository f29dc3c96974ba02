import { describe, it, expect, vi, afterEach } from 'vitest';
import { silentLogger, type Logger } from '../../../src/domain/logger.ts';
import { loadWorkerEnv } from '../../../src/platform/env.ts';
import { workerSettingsFromEnv } from '../../../workers/runtime/settings.ts';
import type { ReportAck, UsageBatch, UsageRecord } from '../../../src/domain/usage-record.ts';
import type { ReportChannel } from '../../../workers/contracts.ts';
import { UsageReporter, type UsageOverflow } from '../../../workers/usage/usage-reporter.ts';

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

  it('drop-oldest (the default) evicts the oldest unacknowledged records first, so the newest survive an outage', async () => {
    const f = fakeChannel();
    const r = new UsageReporter(f.channel, { batchSize: 2, flushIntervalMs: 10_000, maxBuffered: 4, reconnectMinMs: 1 }, silentLogger);
    r.start();
    for (let i = 0; i < 4; i++) r.push(record(i)); // two batches sent, never acknowledged: [r0 r1] [r2 r3]
    expect(r.snapshot()).toMatchObject({ queued: 0, awaitingAck: 4, dropped: 0 });
    r.push(record(4)); // evicts r0
    expect(r.snapshot()).toMatchObject({ queued: 1, awaitingAck: 3, dropped: 1 });
    r.push(record(5)); // evicts r1; [r4 r5] goes out
    expect(r.snapshot()).toMatchObject({ queued: 0, awaitingAck: 4, dropped: 2 });
    f.opened[0]!.fail();
    await until(() => f.opened.length === 2 && f.opened[1]!.batches.length === 2);
    const resent = f.opened[1]!.batches;
    expect(resent.map((b) => b.records.map((x) => x.request_id))).toEqual([['r2', 'r3'], ['r4', 'r5']]);
    expect(resent[0]!.batch_id).toBe(f.opened[0]!.batches[1]!.batch_id); // same ids on resend
    // A late ack for the evicted batch changes nothing; acks for the rest count.
    f.opened[1]!.ack(f.opened[0]!.batches[0]!.batch_id);
    for (const b of resent) f.opened[1]!.ack(b.batch_id);
    expect(await r.drain(100)).toBe(true);
    expect(r.snapshot()).toMatchObject({ acknowledged: 4, dropped: 2, queued: 0, awaitingAck: 0 });
    await r.close(10);
  });

  it('drop-oldest trims a partly evicted batch and resends only what is left of it, under the same id', async () => {
    const f = fakeChannel();
    const r = new UsageReporter(f.channel, { batchSize: 3, flushIntervalMs: 10_000, maxBuffered: 3, reconnectMinMs: 1, overflow: 'drop-oldest' }, silentLogger);
    r.start();
    for (let i = 0; i < 3; i++) r.push(record(i)); // [r0 r1 r2] sent
    r.push(record(3)); // evicts r0
    f.opened[0]!.fail();
    await until(() => f.opened.length === 2 && f.opened[1]!.batches.length === 1);
    const [resent] = f.opened[1]!.batches;
    expect(resent!.batch_id).toBe(f.opened[0]!.batches[0]!.batch_id);
    expect(resent!.records.map((x) => x.request_id)).toEqual(['r1', 'r2']);
    expect(f.opened[0]!.batches[0]!.records).toHaveLength(3); // the batch already written is left untouched
    f.opened[1]!.ack(resent!.batch_id);
    expect(r.snapshot()).toMatchObject({ acknowledged: 2, queued: 1, dropped: 1 });
    await r.close(10);
  });

  it('drop-newest keeps what it holds and refuses new records, counting them', async () => {
    const f = fakeChannel();
    const r = new UsageReporter(f.channel, { batchSize: 2, flushIntervalMs: 10_000, maxBuffered: 4, reconnectMinMs: 1, overflow: 'drop-newest' }, silentLogger);
    r.start();
    for (let i = 0; i < 7; i++) r.push(record(i));
    expect(r.snapshot()).toMatchObject({ queued: 0, awaitingAck: 4, dropped: 3 });
    f.opened[0]!.fail();
    await until(() => f.opened.length === 2 && f.opened[1]!.batches.length === 2);
    expect(f.opened[1]!.batches.map((b) => b.records.map((x) => x.request_id))).toEqual([['r0', 'r1'], ['r2', 'r3']]);
    for (const b of f.opened[1]!.batches) f.opened[1]!.ack(b.batch_id);
    // Room again: new records are taken.
    r.push(record(7));
    expect(await r.drain(5)).toBe(false);
    f.opened[1]!.ack(f.opened[1]!.batches[2]!.batch_id);
    expect(await r.drain(100)).toBe(true);
    expect(r.snapshot()).toMatchObject({ acknowledged: 5, dropped: 3, queued: 0, awaitingAck: 0 });
    await r.close(10);
  });

  describe('overflow warnings', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    const capture = () => {
      const warnings: { msg: string; fields: Record<string, unknown> | undefined }[] = [];
      const logger: Logger = { ...silentLogger, warn: (msg, fields) => void warnings.push({ msg, fields }) };
      return { logger, warnings };
    };

    for (const overflow of ['drop-oldest', 'drop-newest'] as UsageOverflow[]) {
      it(`${overflow}: one warning at most every 10 s, with the running count, and the last count on close`, async () => {
        vi.useFakeTimers();
        const { logger, warnings } = capture();
        const f = fakeChannel();
        const r = new UsageReporter(f.channel, { batchSize: 1000, flushIntervalMs: 60_000, maxBuffered: 2, overflow }, logger);
        r.start();
        for (let i = 0; i < 102; i++) r.push(record(i)); // 100 dropped
        expect(warnings).toEqual([
          { msg: 'usage buffer full: records dropped', fields: { overflow, max_buffered: 2, dropped: 1, total_dropped: 1 } },
        ]);
        vi.advanceTimersByTime(9_999);
        expect(warnings).toHaveLength(1);
        vi.advanceTimersByTime(1);
        expect(warnings[1]!.fields).toEqual({ overflow, max_buffered: 2, dropped: 99, total_dropped: 100 });
        for (let i = 0; i < 5; i++) r.push(record(200 + i));
        vi.advanceTimersByTime(5_000);
        expect(warnings).toHaveLength(2); // still within 10 s of the last warning
        expect(r.snapshot().dropped).toBe(105);
        const closing = r.close(0);
        vi.advanceTimersByTime(1);
        await closing;
        expect(warnings.filter((w) => w.msg === 'usage buffer full: records dropped').map((w) => w.fields)).toEqual([
          { overflow, max_buffered: 2, dropped: 1, total_dropped: 1 },
          { overflow, max_buffered: 2, dropped: 99, total_dropped: 100 },
          { overflow, max_buffered: 2, dropped: 5, total_dropped: 105 },
        ]);
        const kept = f.opened[0]!.batches.flatMap((b) => b.records.map((x) => x.request_id));
        expect(kept).toEqual(overflow === 'drop-oldest' ? ['r203', 'r204'] : ['r0', 'r1']);
      });
    }
  });

  it('USAGE_OVERFLOW reaches the worker settings (default drop-oldest; a bad value names the variable)', () => {
    const base = { CONTROL_PLANE_GRPC_URL: '127.0.0.1:50051', WORKER_TOKEN: 'w'.repeat(20) };
    expect(workerSettingsFromEnv(loadWorkerEnv(base)).usageOverflow).toBe('drop-oldest');
    expect(workerSettingsFromEnv(loadWorkerEnv({ ...base, USAGE_OVERFLOW: 'drop-newest' })).usageOverflow).toBe('drop-newest');
    expect(() => loadWorkerEnv({ ...base, USAGE_OVERFLOW: 'drop-random' })).toThrow(/USAGE_OVERFLOW: /);
  });
});
