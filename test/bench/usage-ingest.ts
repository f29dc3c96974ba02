// `npm run bench:usage`: how many usage records one control plane stores per second, by batch size.
// Starts a control plane in this process on a fresh PostgreSQL database (test/support/stack.ts),
// opens N Report streams (one HTTP/2 connection each, as N workers would) and sends the records in
// batches of B, keeping at most W batches per stream unacknowledged. Batches are encoded before the
// clock starts, so the time measured is the control plane's: decode, store (one statement per batch,
// idempotent), acknowledge. Prints records/s stored (from the acks) and the ack latency for each
// stream count and batch size, and writes test/bench/out/usage-latest.md. With one stream and W=1
// the ack latency is one batch's store round trip; with more, it includes waiting for the database.
//
// Env: BENCH_USAGE_RECORDS (default 200000 per scenario), BENCH_USAGE_BATCH_SIZES (default
// 50,200,1000), BENCH_USAGE_STREAMS (default 1,4), BENCH_USAGE_WINDOW (unacknowledged batches per
// stream, default 1).
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import type { ReportAck, UsageBatch, UsageRecord } from '../../src/domain/usage-record.ts';
import { workerSyncService, workerTokenMetadata } from '../../src/platform/grpc-contract.ts';
import { startStack, TEST_WORKER_TOKEN, type Stack } from '../support/stack.ts';
import { machine } from './report.ts';

function intList(name: string, fallback: string, min: number, max: number): number[] {
  const list = (process.env[name] ?? fallback).split(',').map((s) => Number(s.trim()));
  if (list.some((n) => !Number.isInteger(n) || n < min || n > max)) throw new Error(`${name} must be integers in ${min}..${max}`);
  return list;
}

const [RECORDS = 200_000] = intList('BENCH_USAGE_RECORDS', '200000', 1_000, 5_000_000);
const BATCH_SIZES = intList('BENCH_USAGE_BATCH_SIZES', '50,200,1000', 1, 5_000);
const STREAM_COUNTS = intList('BENCH_USAGE_STREAMS', '1,4', 1, 64);
const [WINDOW = 1] = intList('BENCH_USAGE_WINDOW', '1', 1, 64);
const OUT_DIR = fileURLToPath(new URL('./out/', import.meta.url));

interface Row {
  streams: number;
  batchSize: number;
  records: number;
  batches: number;
  seconds: number;
  recordsPerSecond: number;
  p50: number;
  p99: number;
  /** This process's (control plane + senders) CPU per stored record. */
  cpuUsPerRecord: number;
  rows: number;
}

type Serialize = (value: unknown) => Buffer;
type Deserialize = (bytes: Buffer) => unknown;

const reportMethod = () => {
  const def = workerSyncService().service.Report!;
  return { path: def.path, serialize: def.requestSerialize as Serialize, deserialize: def.responseDeserialize as Deserialize };
};

function makeRecord(stack: Stack, id: string, now: number): UsageRecord {
  return {
    idempotency_id: `${id}:0`, request_id: id, attempt: 0, trace_id: `trace-${id}`, organisation_id: stack.organisationId,
    workspace_id: stack.workspaceId, api_key_id: '', provider: 'openai', model: 'gpt-4o-mini', endpoint: 'chat.completions',
    method: 'POST', status: 200, started_at_ms: now, latency_ms: 12, upstream_latency_ms: 10, prompt_tokens: 11,
    completion_tokens: 7, total_tokens: 18, is_stream: false, error_code: '', metadata_json: '{"team":"bench"}',
  };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/** Sends `batches` (already encoded) over one Report stream, at most WINDOW unacknowledged; resolves with the stored count. */
function sendStream(client: grpc.Client, batches: { id: string; bytes: Buffer }[], latencies: number[]): Promise<number> {
  const { path, deserialize } = reportMethod();
  return new Promise((resolve, reject) => {
    const call = client.makeBidiStreamRequest(path, (b: Buffer) => b, deserialize, workerTokenMetadata(TEST_WORKER_TOKEN));
    const sentAt = new Map<string, number>();
    let next = 0;
    let acked = 0;
    let stored = 0;
    const sendNext = () => {
      const b = batches[next++];
      if (!b) return;
      sentAt.set(b.id, performance.now());
      call.write(b.bytes);
    };
    call.on('data', (ack: ReportAck) => {
      const t = sentAt.get(ack.batch_id);
      if (t === undefined) return reject(new Error(`unexpected ack ${ack.batch_id}`));
      latencies.push(performance.now() - t);
      sentAt.delete(ack.batch_id);
      stored += ack.stored;
      if (ack.rejected || ack.duplicates) return reject(new Error(`batch ${ack.batch_id}: ${ack.rejected} rejected, ${ack.duplicates} duplicates`));
      if (++acked === batches.length) call.end();
      else sendNext();
    });
    call.on('error', reject);
    call.on('end', () => (acked === batches.length ? resolve(stored) : reject(new Error(`stream ended after ${acked}/${batches.length} acks`))));
    for (let i = 0; i < WINDOW; i++) sendNext();
    if (!batches.length) call.end();
  });
}

async function run(stack: Stack, clients: grpc.Client[], batchSize: number, records: number, tag: string): Promise<Row> {
  const conn = stack.db.orm.em.getConnection();
  await conn.execute('truncate request_log');
  await conn.execute('vacuum analyze request_log');
  const { serialize } = reportMethod();
  const now = Date.now();
  const perStream: { id: string; bytes: Buffer }[][] = clients.map(() => []);
  let n = 0;
  for (let b = 0; n < records; b++) {
    const count = Math.min(batchSize, records - n);
    const batch: UsageBatch = { batch_id: `${tag}-${b}`, records: Array.from({ length: count }, (_, i) => makeRecord(stack, `${tag}-${n + i}`, now)) };
    n += count;
    perStream[b % clients.length]!.push({ id: batch.batch_id, bytes: serialize(batch) });
  }
  const latencies: number[] = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const stored = (await Promise.all(clients.map((c, i) => sendStream(c, perStream[i]!, latencies)))).reduce((a, b) => a + b, 0);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const [count] = await conn.execute<{ n: number }[]>('select count(*)::int as n from request_log');
  latencies.sort((a, b) => a - b);
  return {
    streams: clients.length,
    batchSize,
    records: stored,
    batches: latencies.length,
    seconds,
    recordsPerSecond: stored / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    cpuUsPerRecord: (cpu.user + cpu.system) / stored,
    rows: count?.n ?? 0,
  };
}

function markdown(rows: Row[], meta: { date: string; loadBefore: string; loadAfter: string }): string {
  const lines = [
    `- Date: ${meta.date}`,
    `- Command: \`${process.env.npm_lifecycle_event === 'bench:usage' ? 'npm run bench:usage' : 'npx tsx test/bench/usage-ingest.ts'}\``,
    `- Machine: ${machine()}`,
    `- Load average: ${meta.loadBefore} before, ${meta.loadAfter} after`,
    `- Settings: ${RECORDS} records per scenario, Report streams on one connection each, at most ${WINDOW} unacknowledged batch(es) per stream; control plane in the bench process (database pool 5), PostgreSQL on the same machine`,
    '',
    '| streams | batch size | records | batches | seconds | records/s stored | ack p50 ms | ack p99 ms | bench process CPU us/record | rows in request_log |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.streams} | ${r.batchSize} | ${r.records} | ${r.batches} | ${r.seconds.toFixed(2)} | ${r.recordsPerSecond.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.cpuUsPerRecord.toFixed(1)} | ${r.rows} |`,
    ),
  ];
  return lines.join('\n') + '\n';
}

async function main(): Promise<number> {
  const date = new Date().toISOString();
  const loadBefore = loadavg().map((n) => n.toFixed(2)).join(' ');
  const stack = await startStack({ workers: 0 });
  const target = `127.0.0.1:${stack.controlPlane.grpcPort}`;
  // A local subchannel pool per client: N real connections, as N workers would have.
  const clients = Array.from({ length: Math.max(...STREAM_COUNTS) }, () => new grpc.Client(target, grpc.credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 }));
  try {
    console.log(`Usage ingest: ${RECORDS} records per scenario, streams ${STREAM_COUNTS.join(',')}, window ${WINDOW}; database ${stack.db.url}`);
    await run(stack, clients, 200, Math.min(20_000, RECORDS), 'warmup'); // JIT and connections warm, not reported
    const rows: Row[] = [];
    for (const streams of STREAM_COUNTS) {
      for (const size of BATCH_SIZES) {
        const row = await run(stack, clients.slice(0, streams), size, RECORDS, `s${streams}b${size}`);
        rows.push(row);
        console.log(
          `  streams ${String(streams).padStart(2)}  batch ${String(size).padStart(5)}  ${row.recordsPerSecond.toFixed(0).padStart(7)} records/s  ack p50 ${row.p50.toFixed(2)} ms  p99 ${row.p99.toFixed(2)} ms  ${row.cpuUsPerRecord.toFixed(1)} us CPU/record  (${row.rows} rows)`,
        );
        if (row.rows !== RECORDS || row.records !== RECORDS) throw new Error(`${streams} streams, batch ${size}: ${row.records} acknowledged as stored, ${row.rows} rows, expected ${RECORDS}`);
      }
    }
    const md = markdown(rows, { date, loadBefore, loadAfter: loadavg().map((n) => n.toFixed(2)).join(' ') });
    await mkdir(OUT_DIR, { recursive: true });
    await writeFile(`${OUT_DIR}usage-latest.md`, md);
    console.log(`\n${md}\nWritten to ${OUT_DIR}usage-latest.md`);
    return 0;
  } finally {
    for (const c of clients) c.close();
    await stack.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
