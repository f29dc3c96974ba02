// Issue 8 item 6: a worker whose Redis is unreachable keeps serving. RATE_LIMIT_FAILURE_MODE=open
// counts limits in the worker alone; closed answers 503 for limited keys; /health says which.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startMockProvider, type MockProvider } from '../support/mock-provider.ts';
import { startStack, type Stack } from '../support/stack.ts';
import type { NodeWorker } from '../../workers/runtime/node.ts';

let stack: Stack;
let mock: MockProvider;
const DEAD_REDIS = 'redis://127.0.0.1:1';

const chat = (w: NodeWorker, key: string) =>
  fetch(`${w.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'x-gateway-api-key': key, 'x-gateway-provider': 'openai', authorization: 'Bearer sk-provider', 'x-gateway-custom-host': mock.baseUrl, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
const health = async (w: NodeWorker) => (await (await fetch(`${w.url}/health`)).json()) as { status: string; limits: { mode: string; shared: boolean; degradedSince: number | null } };

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  mock = await startMockProvider();
  mock.program({ persist: true });
}, 60_000);
afterAll(async () => {
  await mock?.close();
  await stack?.close();
});

describe('rate limits with Redis unreachable', () => {
  it('fail-open: limits hold per worker, answers keep coming, /health reports the limiter degraded', { timeout: 30_000 }, async () => {
    const w = await stack.startWorker({ redisUrl: DEAD_REDIS, rateLimitFailureMode: 'open' });
    const { key } = await stack.createKey({ name: 'open', workspace_id: 'ws-default', scopes: ['completions.write'], rate_limits: [{ type: 'requests', unit: 'rpm', value: 3 }] });
    const statuses = [];
    for (let i = 0; i < 4; i++) {
      const r = await chat(w, key);
      statuses.push(r.status);
      await r.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(await (await fetch(`${w.url}/metrics`)).text()).toMatch(/^gateway_rate_limit_refusals_total\{code="rate_limit_exceeded"\} 1$/m);
    const h = await health(w);
    expect(h.status).toBe('degraded');
    expect(h.limits).toMatchObject({ mode: 'open', shared: false });
    expect(typeof h.limits.degradedSince).toBe('number');
  });

  it('fail-closed: a limited key gets 503 rate_limiter_unavailable, an unlimited one is served; /health says closed', { timeout: 30_000 }, async () => {
    const w = await stack.startWorker({ redisUrl: DEAD_REDIS, rateLimitFailureMode: 'closed' });
    const limited = await stack.createKey({ name: 'closed', workspace_id: 'ws-default', scopes: ['completions.write'], rate_limits: [{ type: 'requests', unit: 'rpm', value: 3 }] });
    const free = await stack.createKey({ name: 'free', workspace_id: 'ws-default', scopes: ['completions.write'] });
    const refused = await chat(w, limited.key);
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as any).error.code).toBe('rate_limiter_unavailable');
    const served = await chat(w, free.key);
    expect(served.status).toBe(200);
    await served.arrayBuffer();
    expect((await health(w)).limits).toMatchObject({ mode: 'closed', shared: false });
    // The refusal is counted by code on the worker's /metrics.
    const metrics = await (await fetch(`${w.url}/metrics`)).text();
    expect(metrics).toMatch(/^gateway_rate_limit_refusals_total\{code="rate_limiter_unavailable"\} 1$/m);
  });
});
