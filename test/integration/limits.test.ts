// Issue 8 item 5: limits hold across the fleet. Four real workers share one Redis; a key's
// 100-requests-per-minute limit admits at most 101 of a burst spread over them, a $1.00 budget
// hit by concurrent requests overspends by at most one request's cost, and a rate-limit policy
// with conditions counts each user apart. Items 1 and 4: x-ratelimit-* on answers, cost in request_log.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startMockProvider, type MockProvider } from '../support/mock-provider.ts';
import { startStack, type Stack } from '../support/stack.ts';

let stack: Stack;
let mock: MockProvider;

const sql = <T>(q: string, p: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, p);
const headers = (key: string, extra: Record<string, string> = {}) => ({
  'x-gateway-api-key': key,
  'x-gateway-provider': 'openai',
  authorization: 'Bearer sk-provider',
  'x-gateway-custom-host': mock.baseUrl,
  'content-type': 'application/json',
  ...extra,
});
const chat = (worker: number, key: string, body: Record<string, unknown> = {}, extra: Record<string, string> = {}) =>
  fetch(`${stack.workers[worker % stack.workers.length]!.url}/v1/chat/completions`, {
    method: 'POST',
    headers: headers(key, extra),
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...body }),
  });

async function rows(keyId: string, count: number): Promise<{ status: number; cost: string | null; total_tokens: number }[]> {
  // Usage arrives batched over gRPC: wait for every answered request's row, bounded.
  for (let i = 0; i < 400; i++) {
    const r = await sql<{ status: number; cost: string | null; total_tokens: number }>('select status, cost, total_tokens from request_log where api_key_id = ?', [keyId]);
    if (r.length >= count) return r;
    await new Promise((res) => setTimeout(res, 25));
  }
  throw new Error(`fewer than ${count} request_log rows for ${keyId}`);
}

beforeAll(async () => {
  stack = await startStack({ workers: 4 });
  mock = await startMockProvider();
  mock.program({ persist: true });
}, 60_000);
afterAll(async () => {
  await mock?.close();
  await stack?.close();
});

describe('limits across four workers sharing Redis', () => {
  it('a 100 rpm key admits at most 101 of a burst over four workers; answers carry x-ratelimit-*, refusals 429 with Retry-After', { timeout: 60_000 }, async () => {
    const { id, key } = await stack.createKey({ name: 'burst', workspace_id: 'ws-default', scopes: ['completions.write'], rate_limits: [{ type: 'requests', unit: 'rpm', value: 100 }] });
    const first = await Promise.all([0, 1, 2, 3].map((w) => chat(w, key)));
    for (const r of first) {
      expect(r.status).toBe(200);
      expect(r.headers.get('x-ratelimit-limit')).toBe('100');
      expect(Number(r.headers.get('x-ratelimit-remaining'))).toBeLessThan(100);
      expect(r.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
      await r.arrayBuffer();
    }
    // Admitted requests wait upstream while the rest of the burst is admitted or refused. The
    // counter is a sliding window: however long the burst takes on this small shared machine, it
    // admits at most 100 (101 if it straddles a minute boundary).
    mock.reset();
    mock.program({ persist: true, delayMs: 1_500 });
    const burst = await Promise.all(
      Array.from({ length: 196 }, async (_, i) => {
        const r = await chat(i, key);
        const body = (await r.json()) as { error?: { code: string } };
        return { status: r.status, code: body.error?.code, retry: r.headers.get('retry-after'), limit: r.headers.get('x-ratelimit-limit'), remaining: r.headers.get('x-ratelimit-remaining') };
      }),
    );
    const admitted = 4 + burst.filter((b) => b.status === 200).length;
    expect(admitted).toBeGreaterThanOrEqual(100);
    expect(admitted).toBeLessThanOrEqual(101);
    const refused = burst.filter((b) => b.status !== 200);
    expect(refused.length).toBe(200 - admitted);
    for (const r of refused) expect(r).toMatchObject({ status: 429, code: 'rate_limit_exceeded', limit: '100', remaining: '0' });
    expect(Number(refused[0]!.retry)).toBeGreaterThanOrEqual(1);
    // Refusals are accounted too, with their code.
    const logged = await rows(id, 200);
    expect(logged.filter((r) => r.status === 429)).toHaveLength(refused.length);
  });

  it('a $1.00 cost budget hit concurrently overspends by at most one request; then usage_limit_exceeded', { timeout: 60_000 }, async () => {
    const { id, key } = await stack.createKey({ name: 'budget', workspace_id: 'ws-default', scopes: ['completions.write'], usage_limits: { credit_limit: 1, type: 'cost' } });
    // gpt-4o: $2.50 / M prompt, $10 / M completion. 40 + 10,000 tokens = $0.1001 a request.
    mock.reset();
    mock.program({ persist: true, usage: { prompt_tokens: 40, completion_tokens: 10_000 } });
    const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(160) }], max_tokens: 10_000 };
    const oneRequestCents = 40 * 0.00025 + 10_000 * 0.001;
    const answers = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const r = await chat(i, key, body);
        const json = (await r.json()) as { error?: { code: string } };
        return { status: r.status, code: json.error?.code };
      }),
    );
    const admitted = answers.filter((a) => a.status === 200).length;
    expect(admitted).toBeGreaterThanOrEqual(9);
    for (const a of answers.filter((x) => x.status !== 200)) expect(a).toEqual({ status: 429, code: 'usage_limit_exceeded' });
    const logged = await rows(id, 40);
    const spent = logged.filter((r) => r.status === 200).reduce((s, r) => s + Number(r.cost), 0);
    expect(logged.filter((r) => r.status === 200).every((r) => Number(r.cost) === oneRequestCents && r.total_tokens === 10_040)).toBe(true);
    expect(spent).toBeLessThanOrEqual(100 + oneRequestCents + 1e-9);
    // Settled: the budget stays used up for the next request on any worker.
    const after = await chat(3, key, body);
    expect(after.status).toBe(429);
    expect(((await after.json()) as any).error.code).toBe('usage_limit_exceeded');
    // A hand reset (reset_usage) reaches every worker (Watch) and starts a fresh counter.
    const reset = await fetch(`${stack.controlPlane.httpUrl}/v2/api-keys/${id}`, {
      method: 'PUT',
      headers: { 'x-gateway-api-key': stack.adminKey, 'content-type': 'application/json' },
      body: JSON.stringify({ reset_usage: true }),
    });
    expect(reset.status).toBe(200);
    for (const w of [0, 1, 2, 3]) {
      let status = 0;
      for (let i = 0; i < 200 && status !== 200; i++) {
        const r = await chat(w, key, body);
        status = r.status;
        await r.arrayBuffer();
        if (status !== 200) await new Promise((res) => setTimeout(res, 25));
      }
      expect(status).toBe(200);
    }
  });

  it('a rate-limit policy with conditions counts each user apart, and leaves requests outside its conditions alone', { timeout: 60_000 }, async () => {
    mock.reset();
    mock.program({ persist: true });
    const created = await fetch(`${stack.controlPlane.httpUrl}/v2/policies/rate-limits`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': stack.adminKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: '3 per user', workspace_id: stack.workspaceId, conditions: [{ key: 'metadata.team', value: 'ml' }], group_by: [{ key: 'metadata._user' }], type: 'requests', unit: 'rpm', value: 3 }),
    });
    expect(created.status).toBe(200);
    const { key } = await stack.createKey({ name: 'policy', workspace_id: 'ws-default', scopes: ['completions.write'] });
    const as = (user: string, team = 'ml') => ({ 'x-gateway-metadata': JSON.stringify({ team, _user: user }) });
    const alice = [];
    for (let i = 0; i < 4; i++) alice.push(await chat(i, key, {}, as('alice')));
    expect(alice.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(alice[0]!.headers.get('x-ratelimit-limit')).toBe('3');
    expect(((await alice[3]!.json()) as any).error.code).toBe('rate_limit_exceeded');
    expect((await chat(1, key, {}, as('bob'))).status).toBe(200);
    expect((await chat(2, key, {}, as('alice', 'infra'))).status).toBe(200);
  });

  it('a realtime session is admitted like any request: the second session of a 1 rpm key gets 429', { timeout: 30_000 }, async () => {
    const { key } = await stack.createKey({ name: 'realtime', workspace_id: 'ws-default', scopes: ['completions.write'], rate_limits: [{ type: 'requests', unit: 'rpm', value: 1 }] });
    const worker = stack.workers[0]!;
    const upgrade = () =>
      worker.handler.realtime(new Request(`${worker.url}/v1/realtime?model=gpt-4o-realtime-preview`, { headers: { ...headers(key), upgrade: 'websocket', connection: 'Upgrade' } }));
    const first = await upgrade();
    expect(first).not.toBeInstanceOf(Response);
    const second = await upgrade();
    expect(second).toBeInstanceOf(Response);
    expect((second as Response).status).toBe(429);
    expect(((await (second as Response).json()) as any).error.code).toBe('rate_limit_exceeded');
  });
});
