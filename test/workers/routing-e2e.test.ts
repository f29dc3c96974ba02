// Issue 7 end to end in one worker: configs from everywhere, strategies through the routing
// engine, retries, timeouts, the response cache and guardrails, against the mock provider
// programmed to fail, hang, rate-limit or answer slowly.
import { describe, it, expect, beforeAll, afterAll, beforeEach } from 'vitest';
import { MemoryStore } from '../../src/domain/store.ts';
import { CircuitBreaker } from '../../workers/routing/circuit-breaker.ts';
import { startMockProvider, type MockProvider } from '../support/mock-provider.ts';
import { GATEWAY_KEY, startHarness, type Harness } from './harness.ts';

let mock: MockProvider;
let gw: Harness;
let strict: Harness;

const body = (extra: Record<string, unknown> = {}) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi there' }], ...extra });
const target = (extra: Record<string, unknown> = {}) => ({ provider: 'openai', api_key: 'sk-a', custom_host: mock.baseUrl, ...extra });
const chat = (config: unknown, b: Record<string, unknown> = body(), extra: Record<string, string> = {}, h: Harness = gw) =>
  fetch(`${h.url}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'x-gateway-api-key': GATEWAY_KEY,
      'content-type': 'application/json',
      ...(config === null ? {} : { 'x-gateway-config': typeof config === 'string' ? config : JSON.stringify(config) }),
      ...extra,
    },
    body: JSON.stringify(b),
  });
const models = () => mock.requests.map((r) => (r.json as { model?: string } | undefined)?.model);

beforeAll(async () => {
  mock = await startMockProvider();
  gw = await startHarness({ withResources: true, store: new MemoryStore(), breaker: null, routing: { backoffBaseMs: 1, backoffMaxMs: 5 } });
  strict = await startHarness({ withResources: true, keyDefaults: { config_id: 'locked', allow_config_override: false } });
});
afterAll(async () => {
  await gw?.close();
  await strict?.close();
  await mock?.close();
});
beforeEach(() => mock.reset());

describe('strategies through the routing engine', () => {
  it('fallback moves past a provider 503 to the next target; headers name the target that answered', async () => {
    mock.program({ status: 503 });
    const res = await chat({ strategy: { mode: 'fallback' }, targets: [target({ override_params: { model: 'first' } }), target({ override_params: { model: 'second' } })] });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    expect(res.headers.get('x-gateway-retry-attempt-count')).toBe('0');
    expect(res.headers.get('x-gateway-cache-status')).toBe('DISABLED');
    expect(models()).toEqual(['first', 'second']);
    // One usage record for the request, the answering target's.
    expect(await gw.recordFor(res.headers.get('x-gateway-trace-id')!)).toMatchObject({ status: 200, model: 'second', error_code: '' });
  });

  it('a stream request falls back too: the second target streams to the caller', async () => {
    mock.program({ status: 503 });
    const res = await chat({ strategy: { mode: 'fallback' }, targets: [target(), target({ override_params: { model: 'second' } })] }, body({ stream: true }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(res.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    const text = await res.text();
    expect(text).toContain('world');
    expect(await gw.recordFor(res.headers.get('x-gateway-trace-id')!)).toMatchObject({ status: 200, model: 'second', is_stream: true, error_code: '' });
  });

  it('on_status_codes narrows fallback: a 400 outside the list is answered as is', async () => {
    mock.program({ status: 400 });
    const res = await chat({ strategy: { mode: 'fallback', on_status_codes: [503] }, targets: [target(), target()] });
    expect(res.status).toBe(400);
    expect(mock.requests).toHaveLength(1);
  });

  it('a gateway refusal (unsafe custom host) never falls back', async () => {
    const res = await chat({ strategy: { mode: 'fallback' }, targets: [target({ custom_host: 'http://169.254.169.254/v1' }), target()] });
    expect(res.status).toBe(400);
    expect(res.headers.get('x-gateway-cache-status')).toBe('DISABLED');
    expect(mock.requests).toHaveLength(0);
  });

  it('an unreachable provider is a provider failure: it falls back', async () => {
    const res = await chat({ strategy: { mode: 'fallback' }, targets: [target({ custom_host: 'http://127.0.0.1:1/v1' }), target({ override_params: { model: 'second' } })] });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    expect(models()).toEqual(['second']);
  });

  it('a request timeout answers 408 timeout_error, and with fallback the next target answers', async () => {
    mock.program({ hang: true });
    const alone = await chat(target({ request_timeout: 150, cache: { mode: 'simple' } }));
    expect(alone.status).toBe(408);
    expect(alone.headers.get('x-gateway-cache-status')).toBe('MISS');
    expect(alone.headers.get('x-gateway-last-used-option-index')).toBe('config');
    expect(((await alone.json()) as { error: { type: string } }).error.type).toBe('timeout_error');
    mock.program({ hang: true });
    const res = await chat({ strategy: { mode: 'fallback' }, targets: [target({ request_timeout: 150 }), target({ override_params: { model: 'second' } })] });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
  });

  it('loadbalance by weight and conditional by metadata pick their target; only that one is called', async () => {
    const lb = await chat({ strategy: { mode: 'loadbalance' }, targets: [target({ weight: 0, override_params: { model: 'never' } }), target({ weight: 1, override_params: { model: 'always' } })] });
    expect(lb.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    const cond = {
      strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.tier': { $eq: 'pro' } }, then: 'pro' }], default: 'free' },
      targets: [target({ name: 'free', override_params: { model: 'free-model' } }), target({ name: 'pro', override_params: { model: 'pro-model' } })],
    };
    const pro = await chat(cond, body(), { 'x-gateway-metadata': JSON.stringify({ tier: 'pro' }) });
    expect(pro.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    await chat(cond);
    expect(models()).toEqual(['always', 'pro-model', 'free-model']);
  });

  it('targets are built lazily: a managed provider that is never chosen is never resolved', async () => {
    const res = await chat({ strategy: { mode: 'loadbalance' }, targets: [{ provider: '@not-there', weight: 0 }, target()] });
    expect(res.status).toBe(200);
    const chosen = await chat({ strategy: { mode: 'loadbalance' }, targets: [{ provider: '@not-there', weight: 1 }, target({ weight: 0 })] });
    expect(chosen.status).toBe(400);
    expect(((await chosen.json()) as { error: { code: string } }).error.code).toBe('provider_not_found');
  });

  it('per-target params: defaults fill gaps, overrides win, drops go; the caller body is not changed between attempts', async () => {
    mock.program({ status: 500 });
    await chat(
      { strategy: { mode: 'fallback' }, default_params: { temperature: 0.1, max_tokens: 5 }, targets: [target({ override_params: { model: 'a' } }), target({ drop_params: ['max_tokens'] })] },
      body({ temperature: 0.9, user: 'u1' }),
    );
    const [a, b] = mock.requests.map((r) => r.json as Record<string, unknown>);
    expect(a).toMatchObject({ model: 'a', temperature: 0.9, max_tokens: 5, user: 'u1' });
    expect(b).toMatchObject({ model: 'gpt-4o-mini', temperature: 0.9, user: 'u1' });
    expect(b!.max_tokens).toBeUndefined();
  });

  it('pass-through bodies are buffered once and re-sent unchanged to the fallback target', async () => {
    mock.program({ path: '/v1/anything', status: 502 });
    mock.program({ path: '/v1/anything', status: 200, body: { ok: true } });
    const res = await fetch(`${gw.url}/v1/proxy/anything`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': GATEWAY_KEY, 'content-type': 'text/plain', 'x-gateway-config': JSON.stringify({ strategy: { mode: 'fallback' }, targets: [target(), target()] }) },
      body: 'raw bytes \u00e9',
    });
    expect(res.status).toBe(200);
    expect(mock.requests.map((r) => r.body)).toEqual(['raw bytes \u00e9', 'raw bytes \u00e9']);
  });
});

describe('retries', () => {
  it('retries a 429 honouring Retry-After, and reports the retries made', async () => {
    mock.program({ status: 429, headers: { 'retry-after-ms': '5' }, times: 2 });
    const res = await chat(target({ retry: { attempts: 3 } }));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-retry-attempt-count')).toBe('2');
    expect(mock.requests).toHaveLength(3);
  });

  it('exhausted retries answer the last failure with -1; only default codes retry', async () => {
    mock.program({ status: 500, persist: true });
    const res = await chat(target({ retry: { attempts: 2 } }));
    expect(res.status).toBe(500);
    expect(res.headers.get('x-gateway-retry-attempt-count')).toBe('-1');
    expect(mock.requests).toHaveLength(3);
    mock.reset();
    mock.program({ status: 404, persist: true });
    const notRetried = await chat(target({ retry: { attempts: 2 } }));
    expect(notRetried.status).toBe(404);
    expect(mock.requests).toHaveLength(1);
  });

  it('a Retry-After beyond the cap is not waited for', async () => {
    mock.program({ status: 429, headers: { 'retry-after': '3600' } });
    const res = await chat(target({ retry: { attempts: 3 } }));
    expect(res.status).toBe(429);
    expect(mock.requests).toHaveLength(1);
  });
});

describe('configs from everywhere', () => {
  it('a saved config by slug or id; an unknown one is a 400; another workspace’s id is unknown', async () => {
    const id = '7b0e4c52-2d7e-4a57-9a53-2a8f0d9a1c01';
    const saved = { id, slug: 'prod', workspace_id: 'ws-1', version_id: 'v1', config: target({ override_params: { model: 'saved' } }) };
    gw.resources.set('config/ws-1:prod', saved);
    gw.resources.set(`config/${id}`, saved);
    expect((await chat('prod')).status).toBe(200);
    expect((await chat(id)).status).toBe(200);
    expect(models()).toEqual(['saved', 'saved']);
    const missing = await chat('nope');
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('config_not_found');
    const other = '7b0e4c52-2d7e-4a57-9a53-2a8f0d9a1c02';
    gw.resources.set(`config/${other}`, { ...saved, id: other, workspace_id: 'ws-2' });
    expect((await chat(other)).status).toBe(400);
  });

  it("a key's default config routes plain requests; allow_config_override: false refuses the caller's own", async () => {
    strict.resources.set('config/ws-1:locked', { id: 'c1', slug: 'locked', workspace_id: 'ws-1', config: target({ override_params: { model: 'locked' } }) });
    const res = await chat(null, body(), {}, strict);
    expect(res.status).toBe(200);
    expect(models()).toEqual(['locked']);
    const own = await chat(target(), body(), {}, strict);
    expect(own.status).toBe(403);
    expect(((await own.json()) as { error: { code: string } }).error.code).toBe('config_override_not_allowed');
  });
});

describe('response cache', () => {
  const cached = (extra: Record<string, unknown> = {}) => target({ cache: { mode: 'simple', max_age: 60 }, ...extra });

  it('MISS then HIT without calling the provider; namespace separates; force-refresh answers REFRESH', async () => {
    const b = body({ messages: [{ role: 'user', content: `cache ${Math.random()}` }] });
    const miss = await chat(cached(), b);
    expect(miss.headers.get('x-gateway-cache-status')).toBe('MISS');
    const first = await miss.json();
    const hit = await chat(cached(), b);
    expect(hit.headers.get('x-gateway-cache-status')).toBe('HIT');
    expect(await hit.json()).toEqual(first);
    expect(mock.requests).toHaveLength(1);
    const ns = await chat(cached(), b, { 'x-gateway-cache-namespace': 'other' });
    expect(ns.headers.get('x-gateway-cache-status')).toBe('MISS');
    const refresh = await chat(cached(), b, { 'x-gateway-cache-force-refresh': 'true' });
    expect(refresh.headers.get('x-gateway-cache-status')).toBe('REFRESH');
    expect(mock.requests).toHaveLength(3);
  });

  it('failures are not cached', async () => {
    const b = body({ messages: [{ role: 'user', content: `fail ${Math.random()}` }] });
    mock.program({ status: 500 });
    expect((await chat(cached(), b)).status).toBe(500);
    const again = await chat(cached(), b);
    expect(again.status).toBe(200);
    expect(again.headers.get('x-gateway-cache-status')).toBe('MISS');
  });

  it('a stream request with a cached JSON answer is replayed as SSE; a streamed MISS is stored and replayed', async () => {
    const b = body({ messages: [{ role: 'user', content: `sse ${Math.random()}` }] });
    await (await chat(cached(), b)).json();
    const replay = await chat(cached(), { ...b, stream: true });
    expect(replay.headers.get('x-gateway-cache-status')).toBe('HIT');
    expect(replay.headers.get('content-type')).toContain('text/event-stream');
    const text = await replay.text();
    expect(text).toContain('Hello world!');
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);

    const s = body({ stream: true, messages: [{ role: 'user', content: `streamed ${Math.random()}` }] });
    const miss = await chat(cached(), s);
    expect(miss.headers.get('x-gateway-cache-status')).toBe('MISS');
    const streamed = await miss.text();
    const again = await chat(cached(), s);
    expect(again.headers.get('x-gateway-cache-status')).toBe('HIT');
    expect(await again.text()).toBe(streamed);
    expect(mock.requests).toHaveLength(2);
  });
});

describe('guardrails', () => {
  const deny = { 'default.contains': { words: ['forbidden'], operator: 'none' }, deny: true };
  const warn = { 'default.contains': { words: ['forbidden'], operator: 'none' } };

  it('an input guardrail with deny answers 446 with hook_results and calls nobody', async () => {
    const res = await chat(target({ input_guardrails: [deny] }), body({ messages: [{ role: 'user', content: 'a forbidden word' }] }));
    expect(res.status).toBe(446);
    const json = (await res.json()) as { hook_results: { before_request_hooks: { verdict: boolean }[] } };
    expect(json.hook_results.before_request_hooks[0]!.verdict).toBe(false);
    expect(mock.requests).toHaveLength(0);
  });

  it('a failing guardrail without deny answers 246 with the answer and hook_results', async () => {
    const res = await chat(target({ input_guardrails: [warn] }), body({ messages: [{ role: 'user', content: 'forbidden' }] }));
    expect(res.status).toBe(246);
    const json = (await res.json()) as { choices: unknown[]; hook_results: { before_request_hooks: unknown[] } };
    expect(json.choices).toHaveLength(1);
    expect(json.hook_results.before_request_hooks).toHaveLength(1);
  });

  it('output guardrails check the answer; a mutator rewrites the request the provider sees', async () => {
    const out = await chat(target({ output_guardrails: [{ 'default.contains': { words: ['world'], operator: 'none' }, deny: true }] }));
    expect(out.status).toBe(446);
    // Accounted with the status the caller saw.
    expect(await gw.recordFor(out.headers.get('x-gateway-trace-id')!)).toMatchObject({ status: 446, error_code: 'hooks_failed' });
    const mutated = await chat(target({ input_guardrails: [{ 'default.regexReplace': { rule: '\\d{4}', redactText: '[N]' } }] }), body({ messages: [{ role: 'user', content: 'pin 1234' }] }));
    expect(mutated.status).toBe(200);
    expect((mock.requests.at(-1)!.json as { messages: { content: string }[] }).messages[0]!.content).toBe('pin [N]');
  });

  it('output guardrails on a stream read the streamed text and end a denied stream with an error event (tail mode)', async () => {
    const res = await chat(target({ output_guardrails: [{ 'default.contains': { words: ['world'], operator: 'none' }, deny: true }] }), body({ stream: true }));
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('Hello');
    expect(text).toContain('"code":"hooks_failed"');
    const ok = await chat(target({ output_guardrails: [{ 'default.contains': { words: ['world'], operator: 'any' }, deny: true }] }), body({ stream: true }));
    const okText = await ok.text();
    expect(okText).not.toContain('hooks_failed');
    expect(okText.trim().endsWith('data: [DONE]')).toBe(true);
  });

  it("a target's own guardrails: its input denial is its answer (fallback moves on); its output list applies to its answers", async () => {
    const res = await chat(
      { strategy: { mode: 'fallback' }, targets: [target({ input_guardrails: [deny], override_params: { model: 'guarded' } }), target({ override_params: { model: 'open' } })] },
      body({ messages: [{ role: 'user', content: 'forbidden' }] }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    expect(models()).toEqual(['open']);
    const alone = await chat({ strategy: { mode: 'single' }, targets: [target({ input_guardrails: [deny] })] }, body({ messages: [{ role: 'user', content: 'forbidden' }] }));
    expect(alone.status).toBe(446);
    expect(await gw.recordFor(alone.headers.get('x-gateway-trace-id')!)).toMatchObject({ status: 446 });
    const out = await chat({ strategy: { mode: 'single' }, targets: [target({ output_guardrails: [{ 'default.contains': { words: ['world'], operator: 'none' }, deny: true }] })] });
    expect(out.status).toBe(446);
  });

  it('check calls go through the SSRF-checked upstream; an erroring check fails closed by default', async () => {
    // The mock answers the webhook (a trusted local host) with a verdict.
    mock.program({ path: '/hook', status: 200, body: { verdict: false } });
    const viaWebhook = await chat(target({ input_guardrails: [{ 'default.webhook': { webhookURL: `${mock.url}/hook` }, deny: true }] }));
    expect(viaWebhook.status).toBe(446);
    expect(mock.requests[0]!.path).toBe('/hook');
    // Cloud metadata is refused by the upstream's SSRF guard: the check errors, and fails closed.
    const blocked = await chat(target({ input_guardrails: [{ 'default.webhook': { webhookURL: 'http://169.254.169.254/latest' }, deny: true }] }));
    expect(blocked.status).toBe(446);
    const json = (await blocked.json()) as { hook_results: { before_request_hooks: { checks: { error?: unknown }[] }[] } };
    expect(json.hook_results.before_request_hooks[0]!.checks[0]!.error).toBeDefined();
    expect(mock.requests.filter((r) => r.path === '/v1/chat/completions')).toHaveLength(0);
    // GUARDRAILS_FAIL_OPEN: the same erroring check lets the request through.
    const open = await startHarness({ guardrailsFailOpen: true });
    try {
      const passed = await chat(target({ input_guardrails: [{ 'default.webhook': { webhookURL: 'http://169.254.169.254/latest' }, deny: true }] }), body(), {}, open);
      expect(passed.status).toBe(200);
    } finally {
      await open.close();
    }
  });

  it('saved guardrails by slug, and organisation defaults from guardrail_policy apply without any config', async () => {
    const gid = '5f0e4c52-2d7e-4a57-9a53-2a8f0d9a1c09';
    const saved = { id: gid, slug: 'no-secrets', organisation_id: 'org-1', workspace_id: null, checks: [{ id: 'default.contains', parameters: { words: ['secret'], operator: 'none' }, is_enabled: true }], actions: { deny: true, async: false } };
    gw.resources.set('guardrail/org-1:no-secrets', saved);
    gw.resources.set(`guardrail/${gid}`, saved);
    const bySlug = await chat(target({ input_guardrails: ['no-secrets'] }), body({ messages: [{ role: 'user', content: 'a secret' }] }));
    expect(bySlug.status).toBe(446);
    const unknown = await chat(target({ input_guardrails: ['missing-one'] }));
    expect(unknown.status).toBe(400);
    gw.publish('guardrail_policy', 'ws-1', { workspace_id: 'ws-1', input_guardrails: [gid], output_guardrails: [] });
    try {
      const plain = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'x-gateway-api-key': GATEWAY_KEY, 'content-type': 'application/json', 'x-gateway-provider': 'openai', authorization: 'Bearer sk-x', 'x-gateway-custom-host': mock.baseUrl },
        body: JSON.stringify(body({ messages: [{ role: 'user', content: 'my secret' }] })),
      });
      expect(plain.status).toBe(446);
      expect(mock.requests).toHaveLength(0);
    } finally {
      gw.publish('guardrail_policy', 'ws-1', null);
    }
  });
});

describe('stream idle timeout and circuit breaker', () => {
  it('a stalled stream ends with an SSE error event after x-gateway-stream-idle-timeout', async () => {
    mock.program({ hangAfterChunks: 1 });
    const res = await chat(target(), body({ stream: true }), { 'x-gateway-stream-idle-timeout': '200' });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('Hello');
    expect(text).toContain('stream_idle_timeout');
    expect(await gw.recordFor(res.headers.get('x-gateway-trace-id')!)).toMatchObject({ is_stream: true, error_code: 'stream_idle_timeout' });
  });

  it('a circuit opened by one worker is skipped by another sharing the store', async () => {
    const store = new MemoryStore();
    const settings = { failureRatio: 0.5, minCalls: 2, windowMs: 60_000, cooldownMs: 60_000 };
    const bA = new CircuitBreaker(settings, store);
    const bB = new CircuitBreaker(settings, store);
    const a = await startHarness({ breaker: bA });
    const b = await startHarness({ breaker: bB });
    try {
      const config = { strategy: { mode: 'fallback' }, targets: [target({ api_key: 'sk-shared-broken', override_params: { model: 'broken' } }), target({ override_params: { model: 'healthy' } })] };
      await chat(config, body(), {}, b); // B knows the target (closed)
      mock.program({ status: 503 });
      await chat(config, body(), {}, a);
      mock.program({ status: 503 });
      await chat(config, body(), {}, a); // A opens it and publishes
      await bB.sync();
      mock.reset();
      const res = await chat(config, body(), {}, b);
      expect(res.status).toBe(200);
      expect(models()).toEqual(['healthy']);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('sticky loadbalance keeps a caller on the target it got (shared store)', async () => {
    let n = 0;
    const h = await startHarness({ store: new MemoryStore(), routing: { random: () => (n++ % 2 ? 0.9 : 0.1) } });
    try {
      const lb = (sticky: boolean) => ({ strategy: { mode: 'loadbalance', ...(sticky ? { sticky: { hash_fields: ['metadata.user'], ttl: 60 } } : {}) }, targets: [target({ override_params: { model: 'a' } }), target({ override_params: { model: 'b' } })] });
      const meta = { 'x-gateway-metadata': JSON.stringify({ user: 'u-1' }) };
      for (let i = 0; i < 4; i++) await chat(lb(false), body(), meta, h);
      expect(models()).toEqual(['a', 'b', 'a', 'b']);
      mock.reset();
      for (let i = 0; i < 4; i++) await chat(lb(true), body(), meta, h);
      expect(new Set(models()).size).toBe(1);
    } finally {
      await h.close();
    }
  });

  it('an open circuit skips the failing target: the provider is not called again', async () => {
    const h = await startHarness({ withResources: true, breaker: new CircuitBreaker({ failureRatio: 0.5, minCalls: 2, windowMs: 60_000, cooldownMs: 60_000 }, new MemoryStore()) });
    try {
      const config = { strategy: { mode: 'fallback' }, targets: [target({ api_key: 'sk-broken', override_params: { model: 'broken' } }), target({ override_params: { model: 'healthy' } })] };
      // One 503 per request: the broken target takes it, the healthy one answers.
      mock.program({ status: 503 });
      await chat(config, body(), {}, h);
      mock.program({ status: 503 });
      await chat(config, body(), {}, h);
      expect(models()).toEqual(['broken', 'healthy', 'broken', 'healthy']);
      const third = await chat(config, body(), {}, h);
      expect(third.status).toBe(200);
      expect(models().slice(4)).toEqual(['healthy']);
    } finally {
      await h.close();
    }
  });
});
