import { describe, it, expect } from 'vitest';
import { parseGatewayConfig, type GatewayConfig } from '../../../src/domain/config/config-schema.ts';
import { AppError } from '../../../src/domain/errors.ts';
import { MemoryStore } from '../../../src/domain/store.ts';
import { CircuitBreaker } from '../../../workers/routing/circuit-breaker.ts';
import { retryDelay, route, type Leaf, type Outcome, type RoutingDeps } from '../../../workers/routing/engine.ts';
import { applyParams } from '../../../workers/routing/inherit.ts';

interface Call { path: string; provider: string; attempt: number }

/** A scripted provider per target name (provider field): statuses answered in order, the last repeats. */
function scripted(plan: Record<string, (number | Partial<Outcome>)[]>) {
  const calls: Call[] = [];
  const used = new Map<string, number>();
  const call = async (leaf: Leaf, attempt: number): Promise<Outcome & { provider: string }> => {
    const p = leaf.node.provider!;
    calls.push({ path: leaf.path, provider: p, attempt });
    const n = used.get(p) ?? 0;
    used.set(p, n + 1);
    const seq = plan[p] ?? [200];
    const step = seq[Math.min(n, seq.length - 1)]!;
    return { provider: p, ...(typeof step === 'number' ? { status: step } : { status: 500, ...step }) };
  };
  return { calls, call };
}

const sleeps: number[] = [];
const deps = (over: Partial<RoutingDeps> = {}): RoutingDeps => ({
  sleep: async (ms) => void sleeps.push(ms),
  random: () => 0.5,
  ...over,
});
const cfg = (c: unknown): GatewayConfig => parseGatewayConfig(c);
const facts = (metadata: Record<string, unknown> = {}, params: Record<string, unknown> = {}, pathname = '/v1/chat/completions') => ({ metadata, params, url: { pathname } });

describe('strategies', () => {
  it('single: one target, the root path when the config is a lone provider', async () => {
    const s = scripted({});
    const r = await route(cfg({ provider: 'openai' }), facts(), s.call, deps());
    expect(r.leaf.path).toBe('config');
    const nested = await route(cfg({ strategy: { mode: 'single' }, targets: [{ provider: 'anthropic' }] }), facts(), s.call, deps());
    expect(nested.leaf.path).toBe('config.targets[0]');
    expect(nested.outcome.status).toBe(200);
  });

  it('fallback: any non-2xx moves on by default; the answering target is reported', async () => {
    const s = scripted({ a: [503], b: [400], c: [200] });
    const r = await route(cfg({ strategy: { mode: 'fallback' }, targets: [{ provider: 'a' }, { provider: 'b' }, { provider: 'c' }] }), facts(), s.call, deps());
    expect(s.calls.map((c) => c.provider)).toEqual(['a', 'b', 'c']);
    expect(r.leaf.path).toBe('config.targets[2]');
    expect(r.outcome.status).toBe(200);
  });

  it('fallback: on_status_codes narrows when to move on; the last answer is returned when all fail', async () => {
    const s = scripted({ a: [400], b: [500] });
    const narrowed = await route(cfg({ strategy: { mode: 'fallback', on_status_codes: [500] }, targets: [{ provider: 'a' }, { provider: 'b' }] }), facts(), s.call, deps());
    expect(narrowed.outcome.status).toBe(400);
    expect(s.calls).toHaveLength(1);
    const s2 = scripted({ a: [502], b: [500] });
    const all = await route(cfg({ strategy: { mode: 'fallback' }, targets: [{ provider: 'a' }, { provider: 'b' }] }), facts(), s2.call, deps());
    expect([all.outcome.status, all.leaf.path]).toEqual([500, 'config.targets[1]']);
  });

  it('fallback: gateway-side errors never fall back', async () => {
    const s = scripted({ a: [{ status: 400, gatewayError: true }], b: [200] });
    const r = await route(cfg({ strategy: { mode: 'fallback' }, targets: [{ provider: 'a' }, { provider: 'b' }] }), facts(), s.call, deps());
    expect(r.outcome.status).toBe(400);
    expect(s.calls.map((c) => c.provider)).toEqual(['a']);
  });

  it('loadbalance: follows the weights, never picks weight 0', async () => {
    const counts: Record<string, number> = { a: 0, b: 0, z: 0 };
    let i = 0;
    const seq = Array.from({ length: 100 }, (_, k) => (k + 0.5) / 100);
    const s = scripted({});
    const config = cfg({ strategy: { mode: 'loadbalance' }, targets: [{ provider: 'a', weight: 3 }, { provider: 'z', weight: 0 }, { provider: 'b', weight: 1 }] });
    for (let k = 0; k < 100; k++) {
      const r = await route(config, facts(), s.call, deps({ random: () => seq[i++ % 100]! }));
      counts[r.leaf.node.provider!]!++;
    }
    expect(counts).toEqual({ a: 75, b: 25, z: 0 });
  });

  it('loadbalance: sticky routing keeps a hashed field on one target for the TTL', async () => {
    const store = new MemoryStore();
    const s = scripted({});
    const config = cfg({ strategy: { mode: 'loadbalance', sticky: { hash_fields: ['metadata.user'], ttl: 60 } }, targets: [{ provider: 'a' }, { provider: 'b' }] });
    let rnd = 0.1;
    const first = await route(config, facts({ user: 'u1' }), s.call, deps({ sticky: store, random: () => rnd }));
    rnd = 0.9;
    const again = await route(config, facts({ user: 'u1' }), s.call, deps({ sticky: store, random: () => rnd }));
    const other = await route(config, facts({ user: 'u2' }), s.call, deps({ sticky: store, random: () => rnd }));
    expect(first.leaf.node.provider).toBe('a');
    expect(again.leaf.node.provider).toBe('a');
    expect(other.leaf.node.provider).toBe('b');
  });

  it('conditional: first match wins over metadata, params and url.pathname at any depth, then default; 400 when nothing resolves', async () => {
    const s = scripted({});
    const config = cfg({
      strategy: {
        mode: 'conditional',
        conditions: [
          { query: { 'metadata.user.tier': { $eq: 'pro' } }, then: 'fast' },
          { query: { $or: [{ 'params.model': { $regex: '^gpt-4' } }, { 'params.max_tokens': { $gte: 1000 } }] }, then: 'big' },
          { query: { 'url.pathname': { $in: ['/v1/embeddings'] }, 'metadata.env': { $ne: 'dev' } }, then: 'embed' },
        ],
        default: 'cheap',
      },
      targets: [
        { name: 'fast', provider: 'groq' },
        { name: 'big', provider: 'openai' },
        { name: 'embed', provider: 'cohere' },
        { name: 'cheap', provider: 'deepseek' },
      ],
    });
    const pick = async (f: ReturnType<typeof facts>) => (await route(config, f, s.call, deps())).leaf.node.provider;
    expect(await pick(facts({ user: { tier: 'pro' } }, { model: 'gpt-4o' }))).toBe('groq');
    expect(await pick(facts({}, { model: 'gpt-4o' }))).toBe('openai');
    expect(await pick(facts({}, { model: 'x', max_tokens: '2000' }))).toBe('openai');
    expect(await pick(facts({ env: 'prod' }, {}, '/v1/embeddings'))).toBe('cohere');
    expect(await pick(facts({ env: 'dev' }, {}, '/v1/embeddings'))).toBe('deepseek');
    const noDefault = cfg({ strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.a': 1 }, then: 'x' }] }, targets: [{ name: 'x', provider: 'openai' }] });
    const err = (await route(noDefault, facts(), s.call, deps()).catch((e: unknown) => e)) as AppError;
    expect([err.status, err.code]).toEqual([400, 'no_matching_target']);
  });

  it('nests to any depth with settings inherited down the tree (child wins)', async () => {
    const seen: Leaf[] = [];
    const config = cfg({
      retry: { attempts: 2 },
      override_params: { temperature: 0 },
      strategy: { mode: 'fallback' },
      targets: [
        {
          strategy: { mode: 'loadbalance' },
          request_timeout: 5_000,
          override_params: { top_p: 0.5 },
          targets: [{ provider: 'a', retry: { attempts: 0 } }],
        },
        { provider: 'b' },
      ],
    });
    const r = await route(config, facts(), async (leaf) => {
      seen.push(leaf);
      return { status: leaf.node.provider === 'a' ? 500 : 200 };
    }, deps());
    expect(seen.map((l) => l.path)).toEqual(['config.targets[0].targets[0]', 'config.targets[1]', ]);
    expect(seen[0]!.settings).toMatchObject({ retry: { attempts: 0 }, request_timeout: 5_000, override_params: { temperature: 0, top_p: 0.5 } });
    expect(seen[1]!.settings).toMatchObject({ retry: { attempts: 2 }, override_params: { temperature: 0 } });
    expect(seen[1]!.settings.request_timeout).toBeUndefined();
    expect(r.leaf.path).toBe('config.targets[1]');
    expect(applyParams({ model: 'm', temperature: 1, user: 'x' }, { default_params: { max_tokens: 5 }, override_params: { temperature: 0 }, drop_params: ['user'] })).toEqual({ model: 'm', temperature: 0, max_tokens: 5 });
  });
});

describe('retries', () => {
  it('retries default codes up to attempts, counts them, backs off exponentially with jitter', async () => {
    sleeps.length = 0;
    const s = scripted({ a: [429, 500, 502, 200] });
    const r = await route(cfg({ provider: 'a', retry: { attempts: 5 } }), facts(), s.call, deps());
    expect(r.retries).toBe(3);
    expect(s.calls.map((c) => c.attempt)).toEqual([0, 1, 2, 3]);
    expect(sleeps).toEqual([75, 150, 300]);
  });

  it('stops at attempts and does not retry codes outside the list', async () => {
    const s = scripted({ a: [503] });
    const r = await route(cfg({ provider: 'a', retry: { attempts: 2 } }), facts(), s.call, deps());
    expect([r.retries, s.calls.length, r.outcome.status]).toEqual([2, 3, 503]);
    const s2 = scripted({ a: [400] });
    expect((await route(cfg({ provider: 'a', retry: { attempts: 3 } }), facts(), s2.call, deps())).retries).toBe(0);
    const s3 = scripted({ a: [503, 200] });
    expect((await route(cfg({ provider: 'a', retry: { attempts: 3, on_status_codes: [429] } }), facts(), s3.call, deps())).outcome.status).toBe(503);
  });

  it('retries network errors and timeouts whatever the codes', async () => {
    const s = scripted({ a: [{ status: 502, networkError: true }, { status: 408, networkError: true }, 200] });
    const r = await route(cfg({ provider: 'a', retry: { attempts: 3, on_status_codes: [429] } }), facts(), s.call, deps());
    expect([r.retries, r.outcome.status]).toEqual([2, 200]);
  });

  it('honours Retry-After up to a cap, and not when use_retry_after_header is false', () => {
    const d = deps({ maxRetryAfterMs: 10_000 });
    expect(retryDelay(0, { status: 429, retryAfterMs: 2_000 }, {}, d)).toBe(2_000);
    expect(retryDelay(0, { status: 429, retryAfterMs: 20_000 }, {}, d)).toBeNull();
    expect(retryDelay(1, { status: 429, retryAfterMs: 2_000 }, { retry: { attempts: 2, use_retry_after_header: false } }, d)).toBe(150);
  });

  it('discards the answers it moves past', async () => {
    let discarded = 0;
    const r = await route(cfg({ provider: 'a', retry: { attempts: 2 } }), facts(), async (_l, attempt) => ({ status: attempt < 2 ? 500 : 200, discard: () => void discarded++ }), deps());
    expect([r.outcome.status, discarded]).toEqual([200, 2]);
  });
});

describe('circuit breaker in routing', () => {
  it('skips a target whose circuit is open and probes it after the cooldown', async () => {
    let now = 0;
    const breaker = new CircuitBreaker({ failureRatio: 0.5, minCalls: 2, windowMs: 10_000, cooldownMs: 1_000 }, null, () => now);
    const d = deps({ breaker, targetId: (l) => l.node.provider! });
    const config = cfg({ strategy: { mode: 'fallback' }, targets: [{ provider: 'dead' }, { provider: 'ok' }] });
    const s = scripted({ dead: [500, 500, 500, 200] });
    await route(config, facts(), s.call, d);
    await route(config, facts(), s.call, d);
    expect(breaker.state('dead')).toBe('open');
    const before = s.calls.length;
    const r = await route(config, facts(), s.call, d);
    expect(s.calls.slice(before).map((c) => c.provider)).toEqual(['ok']);
    expect(r.leaf.node.provider).toBe('ok');
    now = 1_000;
    expect(breaker.state('dead')).toBe('half-open');
    const probe = await route(config, facts(), s.call, d); // the probe fails (500): open again
    expect(probe.leaf.node.provider).toBe('ok');
    expect(breaker.state('dead')).toBe('open');
    now = 2_000;
    const healed = await route(config, facts(), s.call, d);
    expect(healed.leaf.node.provider).toBe('dead');
    expect(breaker.state('dead')).toBe('closed');
  });

  it('answers 503 when every target is open', async () => {
    const breaker = new CircuitBreaker({ failureRatio: 0.5, minCalls: 1, windowMs: 10_000, cooldownMs: 60_000 });
    const d = deps({ breaker, targetId: (l) => l.node.provider! });
    const s = scripted({ a: [500] });
    await route(cfg({ provider: 'a' }), facts(), s.call, d);
    const err = (await route(cfg({ provider: 'a' }), facts(), s.call, d).catch((e: unknown) => e)) as AppError;
    expect([err.status, err.code]).toEqual([503, 'all_targets_unavailable']);
  });

  it('shares an open circuit with other workers through the shared store', async () => {
    const store = new MemoryStore();
    const w1 = new CircuitBreaker({ failureRatio: 0.5, minCalls: 1, windowMs: 10_000, cooldownMs: 60_000 }, store);
    const w2 = new CircuitBreaker({ failureRatio: 0.5, minCalls: 1, windowMs: 10_000, cooldownMs: 60_000 }, store);
    expect(w2.allow('p')).toBe(true); // w2 knows the target
    w1.record('p', false);
    await new Promise((r) => setTimeout(r, 0));
    await w2.sync();
    expect(w2.state('p')).toBe('open');
    expect(w2.allow('p')).toBe(false);
  });
});

describe('response headers', () => {
  it('reports the retries made, or -1 when they ran out', async () => {
    const { retryCountHeader } = await import('../../../workers/routing/engine.ts');
    const s = scripted({ a: [503] });
    expect(retryCountHeader(await route(cfg({ provider: 'a', retry: { attempts: 2 } }), facts(), s.call, deps()))).toBe('-1');
    const s2 = scripted({ a: [503, 200] });
    expect(retryCountHeader(await route(cfg({ provider: 'a', retry: { attempts: 2 } }), facts(), s2.call, deps()))).toBe('1');
    const s3 = scripted({ a: [503] });
    expect(retryCountHeader(await route(cfg({ provider: 'a' }), facts(), s3.call, deps()))).toBe('0');
  });

  it('reads Retry-After in its three forms', async () => {
    const { retryAfterMs } = await import('../../../workers/routing/engine.ts');
    expect(retryAfterMs({ 'retry-after-ms': '250' })).toBe(250);
    expect(retryAfterMs({ 'x-ms-retry-after-ms': '40' })).toBe(40);
    expect(retryAfterMs({ 'retry-after': '3' })).toBe(3_000);
    expect(retryAfterMs({ 'retry-after': new Date(10_000).toUTCString() }, 4_000)).toBe(6_000);
    expect(retryAfterMs({})).toBeNull();
  });
});
