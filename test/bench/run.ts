// `npm run bench`: the same bounded load (autocannon, 127.0.0.1 only) sent directly to a mock
// upstream, through a bare undici reverse proxy, and through the gateway's worker with auth and
// usage logging on; prints req/s, p50, p99 and the gateway's ratios to the bare proxy, and writes
// test/bench/out/latest.md. Every server runs in its own child process; the load runs here.
//
// Env: BENCH_DURATION (s, default 10), BENCH_WARMUP (s, default 2), BENCH_CONNECTIONS (default
// 1,32), BENCH_WORKER_IN_CONTROL_PLANE=1 (worker shares the control plane's process),
// BENCH_CPU_PROF=1 (V8 CPU profiles of the bare proxy, worker and control plane, in test/bench/out/).
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { CHAT_BODY, CHAT_PATH, measure, type CpuProbe, type Measurement, type Target } from './load.ts';
import { formatMarkdown, formatText, machine } from './report.ts';
import { spawnChild, type Child } from './spawn-child.ts';

interface UsageStats {
  queued: number;
  awaitingAck: number;
  acknowledged: number;
  dropped: number;
}

function intList(name: string, fallback: string, min: number, max: number): number[] {
  const list = (process.env[name] ?? fallback).split(',').map((s) => Number(s.trim()));
  if (list.some((n) => !Number.isInteger(n) || n < min || n > max)) throw new Error(`${name} must be integers in ${min}..${max}`);
  return list;
}

const [seconds = 10] = intList('BENCH_DURATION', '10', 1, 300);
const [warmupSeconds = 2] = intList('BENCH_WARMUP', '2', 0, 60);
const connectionCounts = intList('BENCH_CONNECTIONS', '1,32', 1, 1024);
const workerInControlPlane = process.env.BENCH_WORKER_IN_CONTROL_PLANE === '1';
const OUT_DIR = fileURLToPath(new URL('./out/', import.meta.url));
const profiled = new Set(process.env.BENCH_CPU_PROF === '1' ? ['bare proxy', 'worker', 'control plane'] : []);

const loadAverage = () => loadavg().map((n) => n.toFixed(2)).join(' ');

const children: Child<unknown>[] = [];
async function stopAll(): Promise<void> {
  // Worker first, so its last usage batches reach the control plane; then the rest.
  for (const child of [...children].reverse()) await child.stop().catch(() => {});
}

async function start<R>(name: string, file: string, env?: Record<string, string>): Promise<Child<R>> {
  const nodeArgs = profiled.has(name) ? ['--cpu-prof', `--cpu-prof-dir=${OUT_DIR}`] : [];
  const child = await spawnChild<R>(name, file, { env, nodeArgs, readyTimeoutMs: 120_000 });
  if (nodeArgs.length) console.log(`${name}: pid ${child.pid}, CPU profile to ${OUT_DIR}CPU.*.${child.pid}.0.*.cpuprofile (main thread)`);
  children.push(child as Child<unknown>);
  return child;
}

async function smoke(target: Target): Promise<void> {
  const res = await fetch(target.url + CHAT_PATH, { method: 'POST', headers: { 'content-type': 'application/json', ...target.headers }, body: CHAT_BODY });
  const text = await res.text();
  if (res.status !== 200 || !text.includes('chat.completion')) throw new Error(`${target.name} answered ${res.status}: ${text.slice(0, 500)}`);
}

async function main(): Promise<number> {
  const date = new Date().toISOString();
  const loadBefore = loadAverage();
  const upstream = await start<{ url: string }>('upstream', './upstream-process.ts');
  const bare = await start<{ url: string }>('bare proxy', './bare-proxy-process.ts', { BENCH_UPSTREAM_URL: upstream.ready.url });
  const controlPlane = await start<{ grpcPort: number; key: string; databaseUrl: string; workerUrl: string | null }>('control plane', './gateway-process.ts', {
    BENCH_WORKER_IN_CONTROL_PLANE: workerInControlPlane ? '1' : '0',
  });
  const worker = workerInControlPlane ? null : await start<{ url: string }>('worker', './worker-process.ts', { BENCH_GRPC_PORT: String(controlPlane.ready.grpcPort) });
  const usageOwner = worker ?? controlPlane;
  const workerUrl = worker?.ready.url ?? controlPlane.ready.workerUrl!;

  const providerAuth = { authorization: 'Bearer sk-bench' };
  const selfCpu = async () => {
    const { user, system } = process.cpuUsage();
    return user + system;
  };
  const cpuOf = (child: Child<unknown>) => () => child.call<number>('cpu');
  const gatewayCpu: Record<string, CpuProbe> = worker ? { proxy: cpuOf(worker), 'control plane': cpuOf(controlPlane) } : { proxy: cpuOf(controlPlane) };
  const cpu: Record<string, Record<string, CpuProbe>> = {
    direct: { load: selfCpu, upstream: cpuOf(upstream) },
    'bare proxy': { load: selfCpu, upstream: cpuOf(upstream), proxy: cpuOf(bare) },
    gateway: { load: selfCpu, upstream: cpuOf(upstream), ...gatewayCpu },
  };
  const targets: Target[] = [
    { name: 'direct', url: upstream.ready.url, headers: providerAuth },
    { name: 'bare proxy', url: bare.ready.url, headers: providerAuth },
    {
      name: 'gateway',
      url: workerUrl,
      headers: { ...providerAuth, 'x-gateway-api-key': controlPlane.ready.key, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': `${upstream.ready.url}/v1` },
    },
  ];
  for (const t of targets) await smoke(t);
  console.log(`Bench: ${connectionCounts.length * targets.length} scenarios of ${warmupSeconds} s warm-up + ${seconds} s measured; database ${controlPlane.ready.databaseUrl}`);

  const rows: Measurement[] = [];
  let gatewayOk = 1; // the smoke request
  for (const connections of connectionCounts) {
    for (const target of targets) {
      const m = await measure(target, connections, { seconds, warmupSeconds, cpu: cpu[target.name]! });
      rows.push(m);
      console.log(`  ${target.name.padEnd(10)} c=${String(connections).padStart(3)}  ${m.rps.toFixed(0).padStart(6)} req/s  p50 ${m.p50.toFixed(3)} ms  p99 ${m.p99.toFixed(3)} ms`);
      const failures = m.non2xx + m.errors + m.timeouts;
      if (failures > 0) {
        const msg = `${target.name} at ${connections} connections: ${m.non2xx} non-2xx, ${m.errors} errors, ${m.timeouts} timeouts`;
        if (target.name === 'gateway') throw new Error(msg);
        console.warn(`  warning: ${msg}`);
      }
      if (target.name === 'gateway') {
        gatewayOk += m.ok2xx;
        // Let the control plane finish this scenario's usage before the next one starts.
        await usageOwner.call<UsageStats>('drain', 30_000);
      }
    }
  }

  const usage = await usageOwner.call<UsageStats>('drain', 30_000);
  const logged = await controlPlane.call<number>('count');
  const usageOk = logged >= gatewayOk && usage.dropped === 0;
  const report = {
    date,
    command: process.env.npm_lifecycle_event === 'bench' ? 'npm run bench' : 'npx tsx test/bench/run.ts',
    machine: machine(),
    settings: `${warmupSeconds} s warm-up + ${seconds} s measured per scenario, connections ${connectionCounts.join(',')}, pipelining 1; worker ${workerInControlPlane ? 'in the control plane process' : 'in its own process'}`,
    loadAverage: `${loadBefore} before, ${loadAverage()} after (1/5/15 min; other work on the machine skews results)`,
    rows,
    usage: `${logged} request_log rows for ${gatewayOk} gateway 2xx answers (reporter: ${usage.acknowledged} acknowledged, ${usage.dropped} dropped)${usageOk ? '' : ' - MISSING ROWS'}`,
  };
  console.log(`\n${formatText(report)}`);
  const outFile = `${OUT_DIR}latest.md`;
  await writeFile(outFile, formatMarkdown(report));
  console.log(`\nReport: ${outFile}`);
  if (!usageOk) console.error('Usage logging check failed: fewer request_log rows than gateway answers.');
  return usageOk ? 0 : 1;
}

const budgetMs = (connectionCounts.length * 3 * (seconds + warmupSeconds + 10) + 240) * 1000;
const watchdog = setTimeout(() => {
  console.error(`Bench exceeded its ${budgetMs / 1000} s budget; stopping.`);
  void stopAll().finally(() => process.exit(1));
}, budgetMs);
watchdog.unref();
process.once('SIGINT', () => void stopAll().finally(() => process.exit(130)));

let code = 1;
await mkdir(OUT_DIR, { recursive: true });
try {
  code = await main();
} catch (err) {
  console.error(`Bench failed: ${err instanceof Error ? err.stack : String(err)}`);
} finally {
  await stopAll();
  clearTimeout(watchdog);
}
process.exit(code);
