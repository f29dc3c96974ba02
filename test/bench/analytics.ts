// Analytics over a million logged requests (issue 9, item 3: "a query over a million logged
// requests answers in under a second on this machine"). Run by hand:
//   npx tsx test/bench/analytics.ts            (BENCH_ANALYTICS_ROWS, default 1000000)
// Starts a control plane on a fresh PostgreSQL database (test/support/stack.ts), seeds the rows
// with one SQL statement per month (generate_series: 30 days, 1000 users, 10 models, 20 team
// values, 5 % errors, 10 % cache hits, 100 000 feedback rows), then times every analytics route
// over the whole 30 days through REST (3 runs each, the median and the worst), and the log list.
import { loadavg } from 'node:os';
import { startStack } from '../support/stack.ts';
import { machine } from './report.ts';

const ROWS = Number(process.env.BENCH_ANALYTICS_ROWS ?? 1_000_000);
const DAYS = 30;
const END = Date.UTC(2026, 10, 20);
const START = END - DAYS * 86_400_000;

const stack = await startStack({ workers: 0 });
const conn = stack.db.orm.em.getConnection();
// Drop the database whatever happens.
process.on('uncaughtException', (err) => {
  console.error(err);
  void stack.close().finally(() => process.exit(1));
});
process.on('unhandledRejection', (err) => {
  console.error(err);
  void stack.close().finally(() => process.exit(1));
});
const base = stack.controlPlane.httpUrl;

console.log(`seeding ${ROWS} logs over ${DAYS} days …`);
let t = performance.now();
for (let m = new Date(START); m.getTime() < END; m = new Date(Date.UTC(m.getUTCFullYear(), m.getUTCMonth() + 1, 1))) {
  await conn.execute('select request_log_ensure_partition(?)', [m]);
}
await conn.execute('select request_log_ensure_partition(?)', [new Date(END - 1)]);
await conn.execute(
  `insert into request_log (id, idempotency_id, request_id, attempt, trace_id, organisation_id, workspace_id, api_key_id, provider, model, endpoint, method,
     status, latency_ms, upstream_latency_ms, prompt_tokens, completion_tokens, total_tokens, is_stream, metadata, started_at, user_id, cost,
     cache_status, retry_count, mode, target_path)
   select gen_random_uuid(), 'b:' || i, 'b' || i, 0, 'tr' || i, ?, ?, null, case when i % 3 = 0 then 'anthropic' else 'openai' end, 'model-' || (i % 10),
     'chat.completions', 'POST', case when i % 20 = 0 then 500 when i % 50 = 1 then 429 else 200 end, 50 + (i::bigint * 7919) % 2000, 40 + (i::bigint * 7919) % 1900,
     10 + i % 500, 5 + i % 300, 15 + i % 500 + i % 300, false,
     jsonb_build_object('_user', 'user-' || (i % 1000), 'team', 'team-' || (i % 20)),
     to_timestamp(? + (i::float8 / ?) * ?) , 'user-' || (i % 1000), (i % 100) / 10.0,
     case when i % 10 = 0 then 'HIT' when i % 37 = 0 then 'SEMANTIC HIT' else 'MISS' end, case when i % 25 = 0 then 1 else 0 end,
     case when i % 7 = 0 then 'fallback' else 'single' end, case when i % 14 = 0 then 'targets[1]' else 'targets[0]' end
   from generate_series(1, ?) i`,
  [stack.organisationId, stack.workspaceId, START / 1000, ROWS, DAYS * 86_400, ROWS],
);
await conn.execute(
  `insert into feedback (id, organisation_id, workspace_id, trace_id, value, weight, created_at)
   select gen_random_uuid(), ?, ?, 'tr' || (i * 10), (i % 21) - 10, 1, to_timestamp(? + (i::float8 / ?) * ?) from generate_series(1, ?) i`,
  [stack.organisationId, stack.workspaceId, START / 1000, ROWS / 10, DAYS * 86_400, Math.floor(ROWS / 10)],
);
await conn.execute('analyze request_log');
await conn.execute('analyze feedback');
console.log(`seeded in ${((performance.now() - t) / 1000).toFixed(1)} s`);

const range = `time_of_generation_min=${new Date(START).toISOString()}&time_of_generation_max=${new Date(END).toISOString()}`;
const paths = [
  ...['requests', 'cost', 'latency', 'tokens', 'users', 'users/requests', 'errors', 'errors/rate', 'errors/stacks', 'errors/status-codes', 'requests/rescued',
    'cache/hit-rate', 'cache/latency', 'feedbacks', 'feedbacks/scores', 'feedbacks/weighted', 'feedbacks/ai-models'].map((g) => `/v1/analytics/graphs/${g}?${range}`),
  `/v1/analytics/summary/cache?${range}`,
  `/v1/analytics/groups/users?${range}`,
  `/v1/analytics/groups/ai-models?${range}`,
  `/v1/analytics/groups/metadata/team?${range}`,
  `/v1/analytics/graphs/requests?${range}&status_code=500&ai_org_model=openai__model-4`,
  `/v1/analytics/graphs/latency?${range}&metadata=${encodeURIComponent('{"team":"team-3"}')}`,
  `/v1/logs?limit=50&${range}`,
];

const results: { path: string; median: number; max: number }[] = [];
for (const p of paths) {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    t = performance.now();
    const res = await fetch(`${base}${p}`, { headers: { 'x-gateway-api-key': stack.adminKey } });
    await res.text();
    if (res.status !== 200) throw new Error(`${p}: ${res.status}`);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  results.push({ path: p.replace(range, '<30 days>'), median: times[1]!, max: times[2]! });
  console.log(`${times[1]!.toFixed(0).padStart(6)} ms  ${p.replace(range, '<30 days>')}`);
}

const lines = [
  '',
  `## Analytics over ${ROWS.toLocaleString('en')} logged requests (\`npx tsx test/bench/analytics.ts\`)`,
  '',
  `Date: ${new Date().toISOString()} · Machine: ${machine()} · Load average: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`,
  '',
  '| Route (30-day range, one workspace) | median ms | worst of 3 ms |',
  '|---|---:|---:|',
  ...results.map((r) => `| \`${r.path}\` | ${r.median.toFixed(0)} | ${r.max.toFixed(0)} |`),
  '',
];
console.log(lines.join('\n'));
if (process.env.BENCH_APPEND === '1') {
  const { appendFile } = await import('node:fs/promises');
  await appendFile(new URL('./RESULTS.md', import.meta.url), lines.join('\n'));
}
await stack.close();

