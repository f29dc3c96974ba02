// Issue 8 items 1-4 at the request level: one store call per request for every limit that applies,
// token limits reserved then settled to the provider's count, alerts, and each request's cost.
import { describe, it, expect } from 'vitest';
import type { ResolvedKey } from '../../../src/domain/api-key.ts';
import type { LimitAdjustment, LimitCheck, LimitStore, LimitVerdict } from '../../../src/domain/limits/limit-store.ts';
import { MemoryLimitStore } from '../../../src/domain/limits/memory-limit-store.ts';
import { silentLogger } from '../../../src/domain/logger.ts';
import { accountRequest, admitRequest, estimateUsage, type LimitDeps } from '../../../workers/limits/request-limits.ts';
import { RequestState } from '../../../workers/pipeline/request-state.ts';
import type { ResourceCache } from '../../../workers/sync/resource-cache.ts';

const WS = '11111111-1111-4111-8111-111111111111';
const ORG = '22222222-2222-4222-8222-222222222222';
const key = (over: Partial<ResolvedKey> = {}): ResolvedKey => ({
  id: crypto.randomUUID(), organisationId: ORG, workspaceId: WS, userId: null, type: 'workspace-service', status: 'active', scopes: [], expiresAt: null,
  rateLimits: [], usageLimits: null, defaults: {}, version: 1, ...over,
});

/** The memory store, counting calls and remembering what was asked. */
class SpyStore implements LimitStore {
  readonly kind = 'memory' as const;
  readonly inner: MemoryLimitStore;
  constructor(now: () => number = Date.now) {
    this.inner = new MemoryLimitStore(now);
  }
  takes: LimitCheck[][] = [];
  adjusts: LimitAdjustment[][] = [];
  take(checks: LimitCheck[]): Promise<LimitVerdict[]> {
    this.takes.push(checks);
    return this.inner.take(checks);
  }
  async adjust(a: LimitAdjustment[]): Promise<void> {
    this.adjusts.push(a);
    await this.inner.adjust(a);
  }
  close = async () => {};
}

const policySet = {
  organisation_id: ORG,
  rate_limits: [
    { id: 'rp1', workspace_id: WS, target: 'llm', conditions: [{ key: 'metadata.team', value: 'ml' }], group_by: [{ key: 'metadata._user' }], type: 'requests', unit: 'rpm', value: 2 },
    { id: 'rp2', workspace_id: WS, target: 'mcp_tools', conditions: [{ key: 'mcp_tool', value: '*' }], group_by: [{ key: 'api_key' }], type: 'requests', unit: 'rpm', value: 1 },
  ],
  usage_limits: [],
};
const both = <F>(get: F) => ({ get, getOrStale: get }) as unknown as ResourceCache;
const resources = (payload: unknown = policySet) => both(() => ({ version: 1, payload }));
const deps = (store: LimitStore, over: Partial<LimitDeps> = {}): LimitDeps => ({ store, resources: resources(), logger: silentLogger, ...over });
const stateFor = (k: ResolvedKey, metadata: Record<string, unknown> | null = { team: 'ml', _user: 'alice' }) => {
  const s = new RequestState('t', 'chat.completions', 'POST');
  s.key = k;
  s.setMetadata(metadata);
  return s;
};
const chat = { model: 'gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(400) }], max_tokens: 100 };

describe('admitRequest', () => {
  it('checks the key limits and matching LLM policies in one store call and answers x-ratelimit-* of the tightest', async () => {
    const store = new SpyStore(() => Date.UTC(2026, 10, 22, 12, 0, 15));
    const k = key({ rateLimits: [{ type: 'requests', unit: 'rpm', value: 100 }, { type: 'tokens', unit: 'rpm', value: 10_000 }] });
    const headers = await admitRequest(deps(store), stateFor(k), chat, 'openai');
    expect(store.takes).toHaveLength(1);
    expect(store.takes[0]!.map((c) => c.key)).toEqual([`rl:{ak:${k.id}}:requests:rpm`, `rl:{ak:${k.id}}:tokens:rpm`, 'rl:{pol:rp1:metadata._user%3Aalice}:requests:rpm']);
    expect(headers).toEqual({ 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': '105' });
    await admitRequest(deps(store), stateFor(k), chat, 'openai');
    const refused = await admitRequest(deps(store), stateFor(k), chat, 'openai').catch((e) => e);
    expect(refused).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    expect(refused.headers['retry-after']).toBe('75');
    // Another user of the same key has their own policy counter.
    await expect(admitRequest(deps(store), stateFor(k, { team: 'ml', _user: 'bob' }), chat, 'openai')).resolves.toBeTruthy();
    // Outside the policy's conditions only the key limits count.
    await expect(admitRequest(deps(store), stateFor(k, { team: 'infra', _user: 'alice' }), chat, 'openai')).resolves.toBeTruthy();
  });

  it('does nothing without limits, and reserves tokens that accountRequest settles to the provider count once', async () => {
    const store = new SpyStore();
    const none = stateFor(key(), null);
    expect(await admitRequest(deps(store, { resources: resources({ rate_limits: [], usage_limits: [] }) }), none, chat, 'openai')).toEqual({});
    expect(store.takes).toEqual([]);

    const k = key({ rateLimits: [{ type: 'tokens', unit: 'rpm', value: 10_000 }] });
    const s = stateFor(k, null);
    const d = deps(store, { resources: undefined });
    await admitRequest(d, s, chat, 'openai');
    const reserved = store.takes[0]![0]!.amount;
    expect(reserved).toBe(200); // 400 characters / 4 + max_tokens 100
    s.provider = 'openai';
    s.model = 'gpt-4o';
    s.tokens = { prompt: 90, completion: 40, total: 130 };
    accountRequest(d, s);
    accountRequest(d, s);
    await new Promise((r) => setImmediate(r));
    expect(store.adjusts).toHaveLength(1);
    expect(store.adjusts[0]![0]!.delta).toBe(130 - 200);
  });

  it('records one alert per period when a key budget crosses its threshold', async () => {
    const store = new MemoryLimitStore();
    const k = key({ usageLimits: { credit_limit: 1000, type: 'tokens', alert_threshold: 300 } });
    const d = deps(store, { resources: undefined });
    const alerts: unknown[][] = [];
    for (let i = 0; i < 4; i++) {
      const s = stateFor(k, null);
      await admitRequest(d, s, chat, 'openai');
      alerts.push(s.alerts);
    }
    expect(alerts.filter((a) => a.length)).toHaveLength(1);
    expect(alerts[1]).toEqual([{ scope: 'api_key', id: k.id, type: 'tokens', alert_threshold: 300, credit_limit: 1000, period_end_ms: Date.UTC(9999, 0, 1) }]);
  });

  it('refuses a used-up key budget with usage_limit_exceeded', async () => {
    const store = new MemoryLimitStore();
    const k = key({ usageLimits: { credit_limit: 300, type: 'tokens' } });
    const d = deps(store, { resources: undefined });
    await admitRequest(d, stateFor(k), chat, 'openai');
    await admitRequest(d, stateFor(k), chat, 'openai');
    await expect(admitRequest(d, stateFor(k), chat, 'openai')).rejects.toMatchObject({ status: 429, code: 'usage_limit_exceeded' });
  });

  it('keeps the key limits when the policy set cannot be fetched', async () => {
    const store = new SpyStore();
    let asked = 0;
    const failing = both(() => (asked++, Promise.reject(new Error('control plane away'))));
    const k = key({ organisationId: crypto.randomUUID(), rateLimits: [{ type: 'requests', unit: 'rpm', value: 5 }] });
    let now = Date.now();
    const d = deps(store, { resources: failing, now: () => now });
    await admitRequest(d, stateFor(k), chat, 'openai');
    expect(store.takes[0]!.map((c) => c.key)).toEqual([`rl:{ak:${k.id}}:requests:rpm`]);
    // Not asked again for every request while it is away; asked again a few seconds later.
    await admitRequest(d, stateFor(k), chat, 'openai');
    expect(asked).toBe(1);
    now += 5_001;
    await admitRequest(d, stateFor(k), chat, 'openai');
    expect(asked).toBe(2);
  });
});

describe('cost', () => {
  it('prices the estimate from the catalogue when the provider is known, and nothing otherwise', () => {
    const d = deps(new MemoryLimitStore());
    const e = estimateUsage(d, chat, 'openai');
    expect(e.tokens).toBe(200);
    expect(e.cost).toBeCloseTo(100 * 2.5e-6 + 100 * 10e-6, 12);
    // Provider not known before routing (a config): the model's catalogue price still applies.
    expect(estimateUsage(d, chat, null).cost).toBe(e.cost);
    expect(estimateUsage(d, { ...chat, model: 'no-such-model' }, null).cost).toBeNull();
    expect(estimateUsage(d, { ...chat, model: 'no-such-model' }, 'openai').cost).toBeNull();
  });

  it('puts the cost (cached prompt tokens at the cached price, custom and managed-provider prices) on the usage record; unknown pricing gives tokens and no cost', async () => {
    const s = stateFor(key(), null);
    s.provider = 'openai';
    s.model = 'gpt-4o';
    s.tokens = { prompt: 1_000, completion: 100, total: 1_100, cachedPrompt: 400 };
    accountRequest(undefined, s);
    // 600 × $2.50/M + 400 × $1.25/M + 100 × $10/M = $0.003 = 0.3 cents
    expect(s.toRecord()).toMatchObject({ cost: 0.3, cached_prompt_tokens: 400, prompt_tokens: 1_000 });

    const custom = stateFor(key(), null);
    custom.provider = 'openai';
    custom.model = 'my-finetune';
    custom.tokens = { prompt: 10, completion: 10, total: 20 };
    accountRequest(deps(new MemoryLimitStore(), { customPrices: [{ provider: 'openai', model: 'my-finetune', input: '0.001', output: '0.002' }] }), custom);
    expect(custom.toRecord()!.cost).toBe(3);

    // A managed provider's custom model price (integration models' pricing_config, cents per token).
    const payload = {
      provider: 'openai',
      slug: 'my-openai',
      models: { items: [{ slug: 'my-finetune', pricing_config: { type: 'static', pay_as_you_go: { request_token: { price: 0.1 }, response_token: { price: 0.2 } } } }, { slug: 'no-price', pricing_config: null }] },
    };
    const k = key({ usageLimits: { credit_limit: 100, type: 'cost' } });
    const asked: string[] = [];
    const withProvider = both((type: string, id: string) => (asked.push(`${type} ${id}`), type === 'provider' ? { version: 1, payload } : null));
    const store = new SpyStore();
    const managed = stateFor(k, null);
    await admitRequest(deps(store, { resources: withProvider }), managed, { ...chat, model: 'my-finetune' }, '@my-openai');
    expect(asked).toContain(`provider ${WS}:my-openai`);
    // Reserved at the custom price: 100 prompt × $0.001 + 100 completion × $0.002.
    expect(store.takes[0]![0]!.amount).toBeCloseTo(0.3, 12);
    managed.provider = 'openai';
    managed.model = 'my-finetune';
    managed.tokens = { prompt: 10, completion: 10, total: 20 };
    accountRequest(deps(store, { resources: withProvider }), managed);
    expect(managed.toRecord()!.cost).toBe(3);

    const unknown = stateFor(key(), null);
    unknown.provider = 'openai';
    unknown.model = 'no-such-model';
    unknown.tokens = { prompt: 10, completion: 10, total: 20 };
    accountRequest(undefined, unknown);
    const r = unknown.toRecord()!;
    expect(r.total_tokens).toBe(20);
    expect('cost' in r).toBe(false);
  });
});

describe('policies by model and provider', () => {
  it('applies a policy only to the model and provider it names', async () => {
    const set = {
      organisation_id: ORG,
      rate_limits: [{ id: 'rpm-4o', workspace_id: WS, target: 'llm', conditions: [{ key: 'model', value: 'gpt-4o' }, { key: 'provider', value: 'openai' }], group_by: [{ key: 'api_key' }], type: 'requests', unit: 'rpm', value: 1 }],
      usage_limits: [],
    };
    const store = new SpyStore();
    const d = deps(store, { resources: resources(set) });
    const k = key();
    await admitRequest(d, stateFor(k), chat, 'openai');
    await expect(admitRequest(d, stateFor(k), chat, 'openai')).rejects.toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    // Another model, or another provider, is not counted by it.
    await expect(admitRequest(d, stateFor(k), { ...chat, model: 'gpt-4o-mini' }, 'openai')).resolves.toEqual({});
    await expect(admitRequest(d, stateFor(k), chat, 'groq')).resolves.toEqual({});
  });
});
