import { describe, it, expect, afterAll } from 'vitest';
import { MemoryStore } from '../../../src/domain/store.ts';
import { RedisStore } from '../../../src/platform/redis-store.ts';
import { cacheKey, cachePlan, chatCompletionToSse, ResponseCache, type CacheScope } from '../../../workers/cache/response-cache.ts';
import { TEST_REDIS_URL } from '../../support/db.ts';

const scope: CacheScope = { workspaceId: 'ws1', provider: 'openai', endpoint: 'chat.completions', namespace: null };
const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], temperature: 0 };

const redis = new RedisStore({ url: TEST_REDIS_URL, keyPrefix: `gwtest:cache:${Date.now().toString(36)}:` });
afterAll(() => redis.close());

describe('cacheKey', () => {
  it('is the same for the same request whatever the key order or stream flags, and hash-tagged by workspace', async () => {
    const a = await cacheKey(scope, body);
    const b = await cacheKey(scope, { temperature: 0, stream: true, stream_options: { include_usage: true }, messages: [{ content: 'hi', role: 'user' }], model: 'gpt-4o' });
    expect(a).toBe(b);
    expect(a).toMatch(/^cache:\{ws1\}:[0-9a-f]{64}$/);
  });

  it('differs by workspace, provider, endpoint, namespace, model and content', async () => {
    const base = await cacheKey(scope, body);
    const variants = await Promise.all([
      cacheKey({ ...scope, workspaceId: 'ws2' }, body),
      cacheKey({ ...scope, provider: 'anthropic' }, body),
      cacheKey({ ...scope, endpoint: 'completions' }, body),
      cacheKey({ ...scope, namespace: 'team-a' }, body),
      cacheKey(scope, { ...body, model: 'gpt-4o-mini' }),
      cacheKey(scope, { ...body, temperature: 1 }),
    ]);
    expect(new Set([base, ...variants]).size).toBe(7);
  });
});

describe('cachePlan', () => {
  it('DISABLED without simple mode, REFRESH when forced, else MISS until a hit', () => {
    expect(cachePlan(undefined, false)).toEqual({ status: 'DISABLED', lookup: false, store: false });
    expect(cachePlan({ mode: 'semantic' }, false).status).toBe('DISABLED');
    expect(cachePlan({ mode: 'simple' }, true)).toEqual({ status: 'REFRESH', lookup: false, store: true });
    expect(cachePlan({ mode: 'simple', max_age: 5 }, false)).toEqual({ status: 'MISS', lookup: true, store: true });
  });
});

describe.each([
  ['memory', () => new MemoryStore()],
  ['redis', () => redis],
])('ResponseCache on %s', (_n, make) => {
  it('stores 2xx answers for max_age seconds and no larger than the bound', async () => {
    const cache = new ResponseCache(make(), 200);
    const key = await cacheKey({ ...scope, namespace: `${_n}-${Math.random()}` }, body);
    expect(await cache.put(key, { status: 500, contentType: 'application/json', kind: 'json', body: '{}' }, { mode: 'simple' })).toBe(false);
    expect(await cache.put(key, { status: 200, contentType: 'application/json', kind: 'json', body: 'x'.repeat(300) }, { mode: 'simple' })).toBe(false);
    expect(await cache.get(key)).toBeNull();
    expect(await cache.put(key, { status: 200, contentType: 'application/json', kind: 'json', body: '{"ok":1}' }, { mode: 'simple', max_age: 1 })).toBe(true);
    expect(await cache.get(key)).toEqual({ status: 200, contentType: 'application/json', kind: 'json', body: '{"ok":1}' });
  });
});

describe('chatCompletionToSse', () => {
  it('replays a cached completion as chunks ending with [DONE], usage only when asked', () => {
    const json = JSON.stringify({ id: 'c1', created: 1, model: 'gpt-4o', choices: [{ index: 0, message: { role: 'assistant', content: 'Hello!' }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } });
    const sse = chatCompletionToSse(json, true)!;
    const events = sse.split('\n\n').filter(Boolean).map((e) => e.replace(/^data: /, ''));
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    expect(chunks.map((c) => c.object)).toEqual(Array(4).fill('chat.completion.chunk'));
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? null).join('|')).toBe('|Hello!||');
    expect(chunks[2].choices[0].finish_reason).toBe('stop');
    expect(chunks[3].usage).toEqual({ prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 });
    expect(chatCompletionToSse(json, false)!.includes('usage')).toBe(false);
    expect(chatCompletionToSse('not json', false)).toBeNull();
  });
});
