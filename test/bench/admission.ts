// `npx tsx test/bench/admission.ts`: what admission (issue 8 item 7) adds to one request: the
// worker's admitRequest for a key with two rate limits (requests and tokens per minute) and a cost
// budget — estimate, key checks, policy matching, and one Redis round trip (one Lua script call)
// on 127.0.0.1 — measured request after request, against the same call for a key without limits.
// The settlement (after the answer, off the request's path) is measured apart.
//
// Env: BENCH_ADMISSION_REQUESTS (default 20000), BENCH_ADMISSION_WARMUP (default 2000),
// TEST_REDIS_URL (default redis://127.0.0.1:6379).
import { loadavg } from 'node:os';
import { Redis } from 'ioredis';
import type { ResolvedKey } from '../../src/domain/api-key.ts';
import type { LimitStore } from '../../src/domain/limits/limit-store.ts';
import { MemoryLimitStore } from '../../src/domain/limits/memory-limit-store.ts';
import { ResilientLimitStore } from '../../src/domain/limits/resilient-limit-store.ts';
import { silentLogger } from '../../src/domain/logger.ts';
import { RedisLimitStore } from '../../src/platform/redis-limit-store.ts';
import { accountRequest, admitRequest, type LimitDeps } from '../../workers/limits/request-limits.ts';
import { RequestState } from '../../workers/pipeline/request-state.ts';
import { machine } from './report.ts';

const N = Number(process.env.BENCH_ADMISSION_REQUESTS ?? 20_000);
const WARMUP = Number(process.env.BENCH_ADMISSION_WARMUP ?? 2_000);
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const key = (limited: boolean): ResolvedKey => ({
  id: crypto.randomUUID(),
  organisationId: crypto.randomUUID(),
  workspaceId: crypto.randomUUID(),
  userId: null,
  type: 'workspace-service',
  status: 'active',
  scopes: [],
  expiresAt: null,
  // Limits far above what the bench sends: every request is admitted and takes the full path.
  rateLimits: limited ? [{ type: 'requests', unit: 'rpm', value: 1e9 }, { type: 'tokens', unit: 'rpm', value: 1e12 }] : [],
  usageLimits: limited ? { credit_limit: 1e9, type: 'cost', alert_threshold: 5e8 } : null,
  defaults: {},
  version: 1,
});
const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello in one short sentence, please.' }], max_tokens: 64 };

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function measure(deps: LimitDeps, k: ResolvedKey): Promise<{ admit: number[]; settle: number[] }> {
  const admit: number[] = [];
  const settle: number[] = [];
  for (let i = 0; i < WARMUP + N; i++) {
    const state = new RequestState('bench', 'chat.completions', 'POST');
    state.key = k;
    const t0 = process.hrtime.bigint();
    await admitRequest(deps, state, body, 'openai');
    const t1 = process.hrtime.bigint();
    state.provider = 'openai';
    state.model = 'gpt-4o-mini';
    state.tokens = { prompt: 12, completion: 9, total: 21 };
    // Settlement as finish() does it, awaited here only to time it.
    const settled = new Promise<void>((resolve) => {
      const inner = state.settleLimits;
      state.settleLimits = inner ? (s) => (inner(s), void setImmediate(resolve)) : null;
      if (!inner) resolve();
    });
    const t2 = process.hrtime.bigint();
    accountRequest(deps, state);
    await settled;
    const t3 = process.hrtime.bigint();
    if (i >= WARMUP) {
      admit.push(Number(t1 - t0) / 1_000);
      settle.push(Number(t3 - t2) / 1_000);
    }
  }
  return { admit: admit.sort((a, b) => a - b), settle: settle.sort((a, b) => a - b) };
}

async function main(): Promise<void> {
  const redis = new Redis(REDIS_URL, { keyPrefix: `gwbench:${process.pid}:`, enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  await new Promise<void>((resolve, reject) => {
    redis.once('ready', () => resolve());
    redis.once('error', reject);
  });
  const stores: [string, LimitStore][] = [
    ['Redis (127.0.0.1)', new ResilientLimitStore(new RedisLimitStore(redis), 'open')],
    ['in-process', new MemoryLimitStore()],
  ];
  const before = loadavg().map((l) => l.toFixed(2)).join(' ');
  const rows: string[] = [];
  for (const [name, store] of stores) {
    const deps: LimitDeps = { store, logger: silentLogger };
    const none = await measure(deps, key(false));
    const limited = await measure(deps, key(true));
    const p50 = quantile(limited.admit, 0.5);
    const base = quantile(none.admit, 0.5);
    rows.push(
      `| ${name} | ${base.toFixed(1)} | ${p50.toFixed(1)} | ${quantile(limited.admit, 0.99).toFixed(1)} | **${(p50 - base).toFixed(1)}** | ${quantile(limited.settle, 0.5).toFixed(1)} |`,
    );
  }
  redis.disconnect();
  const after = loadavg().map((l) => l.toFixed(2)).join(' ');
  console.log(`- Date: ${new Date().toISOString()}`);
  console.log(`- Machine: ${machine()}`);
  console.log(`- Load average: ${before} before, ${after} after`);
  console.log(`- ${N} requests measured after ${WARMUP} warm-up, one after another`);
  console.log('');
  console.log('| store | no limits p50 µs | 2 limits + budget p50 µs | p99 µs | added p50 µs | settle p50 µs (off path) |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const r of rows) console.log(r);
}

await main();
