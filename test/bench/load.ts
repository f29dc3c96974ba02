// One bounded load scenario with autocannon: a warm-up run that is thrown away, then the measured
// run. Latency percentiles are computed here from every response's own time (autocannon's
// histogram keeps whole milliseconds only, too coarse for a sub-millisecond aim).
import autocannon, { type Result } from 'autocannon';

export interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
}

/** Reads a process's CPU time in microseconds; sampled around the measured run. */
export type CpuProbe = () => Promise<number>;

export interface Measurement {
  target: string;
  connections: number;
  /** autocannon's requests.average: mean of the per-second counts. */
  rps: number;
  p50: number;
  p99: number;
  responses: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** 2xx answers over warm-up and measured run together (what the gateway should have logged). */
  ok2xx: number;
  /** CPU microseconds per measured response, by process role. */
  cpuPerRequest: Record<string, number>;
}

export const CHAT_PATH = '/v1/chat/completions';
export const CHAT_BODY = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });

function run(target: Target, connections: number, seconds: number, onLatency?: (ms: number) => void): Promise<Result> {
  const instance = autocannon({
    url: target.url + CHAT_PATH,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...target.headers },
    body: CHAT_BODY,
    connections,
    pipelining: 1,
    duration: seconds,
    timeout: 10,
  });
  if (onLatency) instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => onLatency(ms));
  return Promise.resolve(instance);
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

async function sample(probes: Record<string, CpuProbe>): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [role, read] of Object.entries(probes)) out[role] = await read();
  return out;
}

export async function measure(
  target: Target,
  connections: number,
  opts: { seconds: number; warmupSeconds: number; cpu: Record<string, CpuProbe> },
): Promise<Measurement> {
  const warm = opts.warmupSeconds > 0 ? await run(target, connections, opts.warmupSeconds) : null;
  const latencies: number[] = [];
  const before = await sample(opts.cpu);
  const res = await run(target, connections, opts.seconds, (ms) => latencies.push(ms));
  const after = await sample(opts.cpu);
  const sorted = Float64Array.from(latencies).sort();
  const cpuPerRequest: Record<string, number> = {};
  for (const role of Object.keys(opts.cpu)) cpuPerRequest[role] = (after[role]! - before[role]!) / Math.max(1, sorted.length);
  return {
    target: target.name,
    connections,
    rps: res.requests.average,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    responses: sorted.length,
    non2xx: res.non2xx + (warm?.non2xx ?? 0),
    errors: res.errors + (warm?.errors ?? 0),
    timeouts: res.timeouts + (warm?.timeouts ?? 0),
    ok2xx: res['2xx'] + (warm?.['2xx'] ?? 0),
    cpuPerRequest,
  };
}
