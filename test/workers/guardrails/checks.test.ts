import { describe, it, expect } from 'vitest';
import { detectPii, ibanValid, luhn, redactPii } from '../../../workers/guardrails/checks/pii.ts';
import { extractJson } from '../../../workers/guardrails/checks/json-checks.ts';
import { isForwardableHeader } from '../../../workers/guardrails/forward-headers.ts';
import { findCheck } from '../../../workers/guardrails/registry.ts';
import type { CheckContext, CheckDeps } from '../../../workers/guardrails/types.ts';

const deps: CheckDeps = { fetch: async () => ({ status: 200, text: async () => '' }), now: () => 1_000 };
const before = (text: string, over: Partial<CheckContext> = {}): CheckContext => ({
  event: 'beforeRequestHook',
  requestType: 'chatComplete',
  request: { json: { model: 'gpt-4o', messages: [{ role: 'system', content: 'sys' }, { role: 'user', content: text }] }, headers: {} },
  metadata: {},
  model: 'gpt-4o',
  ...over,
});
const after = (text: string): CheckContext => ({
  ...before('q'),
  event: 'afterRequestHook',
  response: { status: 200, json: { choices: [{ index: 0, message: { role: 'assistant', content: text } }] } },
});
const run = async (id: string, ctx: CheckContext, params: Record<string, unknown> = {}) => findCheck(id)!(ctx, params, deps);

describe('text checks', () => {
  it('regexMatch matches the last message, inverted with not', async () => {
    expect((await run('regexMatch', before('my secret plan'), { rule: 'secret' })).verdict).toBe(true);
    expect((await run('default.regexMatch', before('my secret plan'), { rule: 'secret', not: true })).verdict).toBe(false);
    expect((await run('regexMatch', before('nothing'), { rule: '/SECRET/i' })).verdict).toBe(false);
  });

  it('counts words, sentences and characters within ranges', async () => {
    expect((await run('wordCount', before('one two three'), { minWords: 2, maxWords: 3 })).verdict).toBe(true);
    expect((await run('wordCount', before('one two three four'), { maxWords: 3 })).verdict).toBe(false);
    expect((await run('sentenceCount', before('One. Two! Three?'), { minSentences: 3 })).data).toMatchObject({ sentenceCount: 3 });
    expect((await run('characterCount', before('héllo'), { maxCharacters: 5 })).verdict).toBe(true);
    expect((await run('characterCount', before('héllo!'), { maxCharacters: 5 })).verdict).toBe(false);
  });

  it('contains any, all or none of the words', async () => {
    const ctx = after('Hello world');
    expect((await run('contains', ctx, { words: ['Hello', 'moon'] })).verdict).toBe(true);
    expect((await run('contains', ctx, { words: ['Hello', 'moon'], operator: 'all' })).data).toMatchObject({ foundWords: ['Hello'], missingWords: ['moon'] });
    expect((await run('contains', ctx, { words: ['moon'], operator: 'none' })).verdict).toBe(true);
  });

  it('case, suffix, not-null and code detection', async () => {
    expect((await run('alluppercase', after('HELLO, WORLD 42'))).verdict).toBe(true);
    expect((await run('alllowercase', after('Hello'))).verdict).toBe(false);
    expect((await run('endsWith', after('Goodbye.  '), { suffix: '.' })).verdict).toBe(true);
    expect((await run('notNull', after('   '))).verdict).toBe(false);
    expect((await run('containsCode', after('```python\nprint(1)\n```'), { format: 'Python' })).verdict).toBe(true);
    expect((await run('containsCode', after('SELECT id FROM users'), { format: 'SQL' })).verdict).toBe(true);
    expect((await run('containsCode', after('just prose'), { format: 'SQL' })).verdict).toBe(false);
  });

  it('validUrls asks each URL through the injected fetch (no DNS in tests)', async () => {
    const seen: string[] = [];
    const d: CheckDeps = { now: () => 0, fetch: async (url) => (seen.push(url), { status: url.includes('bad') ? 404 : 200, text: async () => '' }) };
    const ok = await findCheck('validUrls')!(after('See https://good.example/a. and https://bad.example/x'), {}, d);
    expect(seen.sort()).toEqual(['https://bad.example/x', 'https://good.example/a']);
    expect(ok.verdict).toBe(false);
    expect(ok.data).toMatchObject({ invalidUrls: ['https://bad.example/x'] });
  });
});

describe('JSON checks', () => {
  it('extracts JSON from fences or text and validates a draft 2020-12 schema', async () => {
    expect(extractJson('Sure:\n```json\n{"a": 1}\n```')).toEqual([{ a: 1 }]);
    expect(extractJson('result {"b": [1]} done')).toEqual([{ b: [1] }]);
    const schema = { type: 'object', required: ['name'], properties: { name: { type: 'string' } }, additionalProperties: false };
    expect((await run('jsonSchema', after('```json\n{"name":"x"}\n```'), { schema })).verdict).toBe(true);
    const bad = await run('jsonSchema', after('{"name": 3}'), { schema });
    expect(bad.verdict).toBe(false);
    expect((bad.data as { validationErrors: unknown[] }).validationErrors.length).toBeGreaterThan(0);
  });

  it('jsonKeys any/all/none', async () => {
    const ctx = after('{"a":1,"b":2}');
    expect((await run('jsonKeys', ctx, { keys: ['a', 'z'] })).verdict).toBe(true);
    expect((await run('jsonKeys', ctx, { keys: ['a', 'z'], operator: 'all' })).verdict).toBe(false);
    expect((await run('jsonKeys', ctx, { keys: ['z'], operator: 'none' })).verdict).toBe(true);
  });
});

describe('request checks', () => {
  it('model allow-list and rules by metadata', async () => {
    expect((await run('modelWhitelist', before('x'), { models: ['gpt-4o'] })).verdict).toBe(true);
    expect((await run('modelwhitelist', before('x'), { models: ['gpt-4o-mini'] })).verdict).toBe(false);
    const rules = { defaults: ['gpt-4o-mini'], metadata: { tier: { pro: ['gpt-4o'] } } };
    expect((await run('modelRules', before('x'), { rules })).verdict).toBe(false);
    expect((await run('modelRules', before('x', { metadata: { tier: 'pro' } }), { rules })).verdict).toBe(true);
  });

  it('allowed request types and required metadata keys', async () => {
    expect((await run('allowedRequestTypes', before('x'), { allowedTypes: ['chatComplete'] })).verdict).toBe(true);
    expect((await run('allowedRequestTypes', before('x', { requestType: 'embed' }), { blockedTypes: ['embed'] })).verdict).toBe(false);
    expect((await run('requiredMetadataKeys', before('x', { metadata: { team: 'a' } }), { metadataKeys: ['team', 'env'] })).verdict).toBe(false);
    expect((await run('requiredMetadataKeys', before('x', { metadata: { team: 'a' } }), { metadataKeys: ['team', 'env'], operator: 'any' })).verdict).toBe(true);
  });
});

describe('PII', () => {
  it('validates cards with Luhn and IBANs with mod 97', () => {
    expect(luhn('4111111111111111')).toBe(true);
    expect(luhn('4111111111111112')).toBe(false);
    expect(ibanValid('GB82 WEST 1234 5698 7654 32')).toBe(true);
    expect(ibanValid('GB82 WEST 1234 5698 7654 33')).toBe(false);
  });

  it('finds e-mail, phone, card, IBAN, SSN and IP, and not look-alikes', () => {
    const text = 'Mail a.b@example.com, call +1 415-555-0132, card 4111 1111 1111 1111, IBAN GB82WEST12345698765432, SSN 123-45-6789, from 10.0.0.12 and 2001:db8::1. Order 4111111111111112.';
    expect(detectPii(text).map((f) => f.category).sort()).toEqual(['credit_card', 'email', 'iban', 'ip', 'ip', 'phone', 'ssn'].sort());
    expect(redactPii('write to a.b@example.com')).toBe('write to [EMAIL]');
  });

  it('the pii check fails on PII, or redacts every message when asked', async () => {
    expect((await run('pii', before('my mail is x@y.io'))).verdict).toBe(false);
    const r = await run('pii', before('my mail is x@y.io'), { redact: true });
    expect(r.verdict).toBe(true);
    expect((r.transformedData!.request!.json.messages as { content: string }[])[1]!.content).toBe('my mail is [EMAIL]');
    const out = await run('pii', after('call 123-45-6789'), { redact: true, categories: ['ssn'] });
    expect(JSON.stringify(out.transformedData!.response!.json)).toContain('call [SSN]');
  });
});

describe('mutators', () => {
  it('regexReplace redacts and may fail on detection', async () => {
    const r = await run('regexReplace', before('key sk-abc123 here'), { rule: '/sk-[a-z0-9]+/', redactText: '[KEY]' });
    expect(r.verdict).toBe(true);
    expect((r.transformedData!.request!.json.messages as { content: string }[])[1]!.content).toBe('key [KEY] here');
    expect((await run('regexReplace', before('sk-abc'), { rule: 'sk-[a-z]+', failOnDetection: true })).verdict).toBe(false);
  });

  it('addPrefix prepends to the last user message', async () => {
    const r = await run('addPrefix', before('hi'), { prefix: 'Be brief. ' });
    expect((r.transformedData!.request!.json.messages as { content: string }[])[1]!.content).toBe('Be brief. hi');
  });
});

describe('forward headers', () => {
  it('refuses credential, metadata, internal routing, hop-by-hop and invalid names', () => {
    for (const h of ['Authorization', 'cookie', 'x-api-key', 'x-gateway-api-key', 'x-gateway-config', 'Metadata-Flavor', 'x-aws-ec2-metadata-token', 'connection', 'transfer-encoding', 'x-forwarded-for', 'bad header', 'a:b']) {
      expect(isForwardableHeader(h), h).toBe(false);
    }
    for (const h of ['x-request-id', 'X-Tenant', 'traceparent']) expect(isForwardableHeader(h), h).toBe(true);
  });
});
