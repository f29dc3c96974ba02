// The routing engine's own cost per request (issue 7 item 8): route() over configs of each
// strategy with an instant in-process "provider", so only the engine is measured (no network,
// no sleeps). Run by hand: `npm run bench:routing`; results are appended to test/bench/RESULTS.md.
import { appendFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseGatewayConfig, type GatewayConfig } from '../../src/domain/config/config-schema.ts';
import { MemoryStore } from '../../src/domain/store.ts';
import { CircuitBreaker } from '../../workers/routing/circuit-breaker.ts';
import { route, type Leaf, type Outcome, type RoutingDeps } from '../../workers/routing/engine.ts';
import { applyParams } from '../../workers/routing/inherit.ts';

const N = Number(process.env.ROUTING_BENCH_N ?? 200_000);
const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], temperature: 1 };
const facts = { metadata: { tier: 'pro', user: 'u-42' }, params: body, url: { pathname: '/v1/chat/completions' } };

const configs: [string, GatewayConfig, (leaf: Leaf, attempt: number) => Outcome][] = [
  ['single target', parseGatewayConfig({ provider: 'openai', api_key: 'k' }), () => ({ status: 200 })],
  [
    'fallback, first fails once',
    parseGatewayConfig({ strategy: { mode: 'fallback' }, targets: [{ provider: 'a', api_key: 'k' }, { provider: 'b', api_key: 'k' }] }),
    (leaf) => ({ status: leaf.node.provider === 'a' ? 503 : 200 }),
  ],
  [
    'loadbalance 3 targets + override_params',
    parseGatewayConfig({ strategy: { mode: 'loadbalance' }, override_params: { temperature: 0 }, targets: [{ provider: 'a', weight: 2 }, { provider: 'b', weight: 1 }, { provider: 'c', weight: 1 }] }),
    () => ({ status: 200 }),
  ],
  [
    'conditional ($and/$regex) → nested fallback',
    parseGatewayConfig({
      strategy: { mode: 'conditional', conditions: [{ query: { $and: [{ 'metadata.tier': { $eq: 'pro' } }, { 'params.model': { $regex: '^gpt-4' } }] }, then: 'fast' }], default: 'cheap' },
      targets: [
        { name: 'fast', strategy: { mode: 'fallback' }, targets: [{ provider: 'a' }, { provider: 'b' }] },
        { name: 'cheap', provider: 'c' },
      ],
    }),
    () => ({ status: 200 }),
  ],
];

const deps = (breaker: CircuitBreaker | null): RoutingDeps => ({
  sleep: async () => {},
  random: Math.random,
  breaker,
  targetId: (l) => l.node.provider ?? '',
  sticky: new MemoryStore(),
});

async function measure(config: GatewayConfig, answer: (leaf: Leaf, attempt: number) => Outcome, d: RoutingDeps): Promise<number> {
  const call = async (leaf: Leaf, attempt: number) => {
    applyParams(body, leaf.settings);
    return answer(leaf, attempt);
  };
  for (let i = 0; i < 20_000; i++) await route(config, facts, call, d); // warm up
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) await route(config, facts, call, d);
  return Number(process.hrtime.bigint() - t0) / 1_000 / N;
}

const rows: string[] = [];
for (const [name, config, answer] of configs) {
  const plain = await measure(config, answer, deps(null));
  const withBreaker = await measure(config, answer, deps(new CircuitBreaker()));
  rows.push(`| ${name} | ${plain.toFixed(2)} | ${withBreaker.toFixed(2)} |`);
  console.log(`${name}: ${plain.toFixed(2)} µs, with breaker ${withBreaker.toFixed(2)} µs`);
}

const report = [
  '',
  `## Routing engine cost (${new Date().toISOString().slice(0, 10)}, \`npm run bench:routing\`)`,
  '',
  `route() per request, mean of ${N.toLocaleString('en')} calls after warm-up, in-process instant provider; ${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)}.`,
  '',
  '| config | µs/request | with circuit breaker |',
  '|---|---|---|',
  ...rows,
  '',
].join('\n');
appendFileSync(fileURLToPath(new URL('./RESULTS.md', import.meta.url)), report);
