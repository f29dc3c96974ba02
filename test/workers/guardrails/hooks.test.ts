import { describe, it, expect, afterAll, beforeAll } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { deniedBody, hookFromShorthand, hooksFrom, runHooks, withHookResults } from '../../../workers/guardrails/hooks.ts';
import { findCheck } from '../../../workers/guardrails/registry.ts';
import { SseTextCollector, streamEnding } from '../../../workers/guardrails/stream-guard.ts';
import type { CheckContext, CheckDeps, Hook } from '../../../workers/guardrails/types.ts';

let server: Server;
let base: string;
const received: { path: string; headers: Record<string, string | string[] | undefined>; body: any }[] = [];
let jwks: unknown[] = [];
let jwks2: unknown[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      const body = data ? JSON.parse(data) : null;
      received.push({ path: req.url!, headers: req.headers, body });
      res.setHeader('content-type', 'application/json');
      if (req.url === '/jwks') return res.end(JSON.stringify({ keys: jwks }));
      if (req.url === '/jwks2') return res.end(JSON.stringify({ keys: jwks2 }));
      if (req.url === '/hook-pass') return res.end(JSON.stringify({ verdict: true, transformedData: { request: { json: { ...body.request.json, messages: [{ role: 'user', content: 'rewritten' }] } } } }));
      if (req.url === '/hook-fail') return res.end(JSON.stringify({ verdict: false, data: { why: 'no' } }));
      if (req.url === '/hook-500') { res.statusCode = 500; return res.end('{}'); }
      res.statusCode = 404;
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const deps: CheckDeps = {
  now: () => Date.now(),
  fetch: async (url, init) => {
    const res = await fetch(url, { method: init.method, headers: init.headers, body: init.body, signal: AbortSignal.timeout(init.timeoutMs) });
    return { status: res.status, text: () => res.text() };
  },
};
const ctx = (text: string, headers: Record<string, string> = {}): CheckContext => ({
  event: 'beforeRequestHook',
  requestType: 'chatComplete',
  request: { json: { model: 'm', messages: [{ role: 'user', content: text }] }, headers },
  metadata: {},
  model: 'm',
});

describe('hooks', () => {
  it('turns a shorthand guardrail into a hook with full check ids and hook keys', () => {
    const h = hookFromShorthand({ 'default.regexMatch': { rule: 'x' }, wordCount: { maxWords: 3 }, deny: true, sequential: true, id: 'g1' }, 'input_0');
    expect(h).toEqual({ id: 'g1', type: 'guardrail', checks: [{ id: 'default.regexMatch', parameters: { rule: 'x' } }, { id: 'default.wordCount', parameters: { maxWords: 3 } }], deny: true, async: false, sequential: true });
  });

  it('resolves saved guardrails by reference and refuses unknown ones', async () => {
    const saved: Hook = { id: 'pii-guard', type: 'guardrail', checks: [{ id: 'default.pii', parameters: {} }], deny: true, async: false, sequential: false };
    const hooks = await hooksFrom(['pii-guard', { contains: { words: ['a'] } }], 'input', async (ref) => (ref === 'pii-guard' ? saved : null));
    expect(hooks.map((h) => h.id)).toEqual(['pii-guard', 'input_1']);
    await expect(hooksFrom(['missing'], 'input', async () => null)).rejects.toThrow(/missing/);
  });

  it('deny fails the request, a failure without deny only marks it; results carry the reference shape', async () => {
    const deny = hookFromShorthand({ regexMatch: { rule: 'secret', not: true }, deny: true }, 'h1');
    const soft = hookFromShorthand({ wordCount: { maxWords: 1 } }, 'h2');
    const run = await runHooks([deny, soft], ctx('a secret word'), deps, { failOnError: true });
    expect([run.denied, run.failed]).toEqual([true, true]);
    expect(run.results[0]).toMatchObject({ verdict: false, id: 'h1', deny: true, async: false, type: 'guardrail', transformed: false });
    expect(run.results[0]!.checks[0]).toMatchObject({ id: 'default.regexMatch', verdict: false, fail_on_error: true });
    const soft2 = await runHooks([soft], ctx('two words'), deps, { failOnError: true });
    expect([soft2.denied, soft2.failed]).toEqual([false, true]);
    const body = JSON.parse(deniedBody({ before_request_hooks: run.results, after_request_hooks: [] }));
    expect(body.error.type).toBe('hooks_failed');
    expect(body.hook_results.before_request_hooks).toHaveLength(2);
    expect(JSON.parse(withHookResults({ id: 'c' }, { before_request_hooks: [], after_request_hooks: run.results })).hook_results.after_request_hooks).toHaveLength(2);
  });

  it('erroring checks fail closed when configured, open otherwise, and a check can say which', async () => {
    const broken = hookFromShorthand({ regexMatch: {} }, 'h'); // rule missing: the check errors
    expect((await runHooks([broken], ctx('x'), deps, { failOnError: true })).failed).toBe(true);
    expect((await runHooks([broken], ctx('x'), deps, { failOnError: false })).failed).toBe(false);
    const lenient = hookFromShorthand({ regexMatch: { failOnError: false } }, 'h');
    const r = await runHooks([lenient], ctx('x'), deps, { failOnError: true });
    expect(r.failed).toBe(false);
    expect(r.results[0]!.checks[0]!.error?.message).toMatch(/rule/);
  });

  it('mutators rewrite the request; sequential checks see earlier rewrites; later hooks too', async () => {
    const redact = hookFromShorthand({ pii: { redact: true }, regexMatch: { rule: 'EMAIL' }, sequential: true, type: 'mutator' }, 'm');
    const next = hookFromShorthand({ regexMatch: { rule: '@', not: true }, deny: true }, 'n');
    const run = await runHooks([redact, next], ctx('mail me at a@b.io'), deps, { failOnError: true });
    expect(run.denied).toBe(false);
    expect((run.request!.messages as { content: string }[])[0]!.content).toBe('mail me at [EMAIL]');
    expect(run.results[0]).toMatchObject({ verdict: true, transformed: true, type: 'mutator' });
  });

  it('async hooks run in the background and never block or deny', async () => {
    const slow = hookFromShorthand({ regexMatch: { rule: 'nope' }, deny: true, async: true }, 'a');
    const run = await runHooks([slow], ctx('x'), deps, { failOnError: true });
    expect([run.denied, run.failed, run.results.length]).toEqual([false, false, 0]);
    const bg = await run.background;
    expect(bg[0]).toMatchObject({ id: 'a', verdict: false, async: true });
  });

  it('feedback from on_fail and on_success', async () => {
    const h = hookFromShorthand({ contains: { words: ['x'] }, on_fail: { feedback: { value: -10, weight: 2 } }, on_success: { feedback: { value: 10 } } }, 'f');
    const fail = await runHooks([h], ctx('y'), deps, { failOnError: true });
    expect(fail.results[0]!.feedback).toMatchObject({ value: -10, weight: 2, metadata: { failedChecks: 'default.contains' } });
    const ok = await runHooks([h], ctx('x'), deps, { failOnError: true });
    expect(ok.results[0]!.feedback).toMatchObject({ value: 10, weight: 1 });
  });
});

describe('remote checks', () => {
  it('webhook: posts the context with allowed forwarded headers, takes its verdict and rewrite', async () => {
    const hook = hookFromShorthand({ webhook: { webhookURL: `${base}/hook-pass`, headers: { 'x-static': '1' }, forwardHeaders: ['x-tenant'] } }, 'w');
    const run = await runHooks([hook], ctx('hi', { 'x-tenant': 't1', authorization: 'Bearer secret' }), deps, { failOnError: true });
    const got = received.find((r) => r.path === '/hook-pass')!;
    expect(got.headers['x-static']).toBe('1');
    expect(got.headers['x-tenant']).toBe('t1');
    expect(got.headers.authorization).toBeUndefined();
    expect(got.body).toMatchObject({ eventType: 'beforeRequestHook', request: { json: { model: 'm' } } });
    expect(run.failed).toBe(false);
    expect(run.request).toEqual({ model: 'm', messages: [{ role: 'user', content: 'rewritten' }] });
    expect((await runHooks([hookFromShorthand({ webhook: { webhookURL: `${base}/hook-fail` } }, 'w')], ctx('hi'), deps, { failOnError: true })).failed).toBe(true);
    const err = await runHooks([hookFromShorthand({ webhook: { webhookURL: `${base}/hook-500` } }, 'w')], ctx('hi'), deps, { failOnError: true });
    expect(err.results[0]!.checks[0]!.error?.message).toMatch(/500/);
    const leak = await runHooks([hookFromShorthand({ webhook: { webhookURL: `${base}/hook-pass`, forwardHeaders: ['Authorization'] } }, 'w')], ctx('hi'), deps, { failOnError: true });
    expect(leak.results[0]!.checks[0]!.error?.message).toMatch(/Authorization/);
  });

  it('jwt: verifies against keys merged from every JWKS URI, refuses bad or missing tokens', async () => {
    const a = await generateKeyPair('RS256');
    const b = await generateKeyPair('ES256');
    jwks = [{ ...(await exportJWK(a.publicKey)), kid: 'a', alg: 'RS256' }];
    jwks2 = [{ ...(await exportJWK(b.publicKey)), kid: 'b', alg: 'ES256' }];
    const tokenB = await new SignJWT({ sub: 'u1' }).setProtectedHeader({ alg: 'ES256', kid: 'b' }).setIssuedAt().setExpirationTime('5m').sign(b.privateKey);
    const params = { jwksUri: `${base}/jwks, ${base}/jwks2`, headerKey: 'X-User-Token' };
    const ok = await findCheck('jwt')!(ctx('x', { 'x-user-token': `Bearer ${tokenB}` }), params, deps);
    expect(ok).toMatchObject({ verdict: true, data: { subject: 'u1' } });
    const other = await generateKeyPair('ES256');
    const forged = await new SignJWT({ sub: 'u1' }).setProtectedHeader({ alg: 'ES256', kid: 'b' }).setIssuedAt().sign(other.privateKey);
    expect((await findCheck('jwt')!(ctx('x', { 'x-user-token': forged }), params, deps)).verdict).toBe(false);
    expect((await findCheck('jwt')!(ctx('x'), params, deps)).verdict).toBe(false);
  });
});

describe('stream guard', () => {
  const enc = (s: string) => new TextEncoder().encode(s);
  it('assembles the streamed text across split chunks and holds back [DONE]', () => {
    const c = new SseTextCollector();
    const stream = 'data: {"choices":[{"delta":{"content":"Hel"}}]}\n\ndata: {"choices":[{"delta":{"content":"lo"}}]}\n\ndata: [DONE]\n\n';
    let relayed = '';
    for (let i = 0; i < stream.length; i += 7) relayed += c.push(enc(stream.slice(i, i + 7)));
    relayed += c.flush();
    expect(c.text).toBe('Hello');
    expect(c.sawDone).toBe(true);
    expect(relayed).not.toContain('[DONE]');
    expect(relayed).toContain('"lo"');
    expect(streamEnding({ denied: true, failed: true, hookResults: { after_request_hooks: [] } }, true)).toMatch(/hooks_failed[\s\S]*data: \[DONE\]\n\n$/);
    expect(streamEnding({ denied: false, failed: false, hookResults: {} }, true)).toBe('data: [DONE]\n\n');
  });

  it('an output guardrail sees the real streamed text (the reference sees an empty string)', async () => {
    const c = new SseTextCollector();
    c.push(enc('data: {"choices":[{"delta":{"content":"Hello there"}}]}\n\n'));
    const after: CheckContext = { ...ctx('q'), event: 'afterRequestHook', response: { status: 200, json: null, text: c.text } };
    const run = await runHooks([hookFromShorthand({ contains: { words: ['Hello'] } }, 'o')], after, deps, { failOnError: true });
    expect(run.failed).toBe(false);
  });
});
