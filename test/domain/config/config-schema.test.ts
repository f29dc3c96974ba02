import { describe, it, expect } from 'vitest';
import {
  collectGuardrailRefs,
  configFromHeader,
  looksLikeInlineConfig,
  parseGatewayConfig,
} from '../../../src/domain/config/config-schema.ts';
import { isValidFieldPath, queryIssues } from '../../../src/domain/config/conditional-query.ts';
import { AppError } from '../../../src/domain/errors.ts';

function paramOf(input: unknown): string | null {
  try {
    parseGatewayConfig(input);
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).status).toBe(400);
    return (e as AppError).param;
  }
  throw new Error('expected a 400');
}

const fallback = {
  strategy: { mode: 'fallback', on_status_codes: [429, 503] },
  targets: [
    { provider: 'openai', api_key: 'sk-a', override_params: { model: 'gpt-4o' } },
    { provider: '@anthropic-prod', override_params: { model: 'claude-3-5-sonnet' } },
  ],
};

const conditional = {
  strategy: {
    mode: 'conditional',
    conditions: [
      { query: { 'metadata.user_tier': { $eq: 'pro' } }, then: 'smart' },
      {
        query: {
          $or: [
            { $and: [{ 'params.model': { $in: ['gpt-4o', 'gpt-4.1'] } }, { 'metadata.org.region': { $ne: 'eu' } }] },
            { 'params.max_tokens': { $gte: 1000, $lt: 4000 } },
            { 'url.pathname': { $regex: '^/v1/chat' } },
          ],
        },
        then: 'cheap',
      },
      { query: { 'params.response_format.type': 'json_object', 'metadata.plan': { $nin: ['free'] } }, then: 'smart' },
    ],
    default: 'cheap',
  },
  targets: [
    { name: 'smart', provider: 'openai', api_key: 'sk', override_params: { model: 'gpt-4o' } },
    { name: 'cheap', virtual_key: 'vk-cheap' },
  ],
};

describe('gateway config schema: valid configs', () => {
  it('accepts a fallback with on_status_codes and keeps the fields', () => {
    expect(parseGatewayConfig(fallback)).toEqual(fallback);
  });

  it('accepts a weighted loadbalance (weight 0 allowed) with sticky routing', () => {
    const cfg = {
      strategy: { mode: 'loadbalance', sticky: { hash_fields: ['metadata.user_id'], ttl: 600 } },
      targets: [
        { provider: 'openai', api_key: 'a', weight: 0.7 },
        { provider: 'azure-openai', api_key: 'b', weight: 0.3, resource_name: 'r', deployment_id: 'd', api_version: '2024-06-01' },
        { provider: 'groq', api_key: 'c', weight: 0 },
      ],
    };
    expect(parseGatewayConfig(cfg)).toEqual(cfg);
  });

  it('accepts conditional routing with nested $and/$or over metadata, params and url.pathname', () => {
    expect(parseGatewayConfig(conditional)).toEqual(conditional);
  });

  it('accepts strategies nested three levels deep with retry, cache and timeouts at several levels', () => {
    const cfg = {
      retry: { attempts: 3, on_status_codes: [429, 500], use_retry_after_header: true },
      cache: { mode: 'simple', max_age: 60 },
      request_timeout: 30_000,
      fetch_integrated_models: true,
      forward_headers: ['x-tenant-id', 'X-Request-Source'],
      strategy: { mode: 'fallback' },
      targets: [
        {
          name: 'primary',
          retry: { attempts: 5 },
          strategy: { mode: 'loadbalance' },
          targets: [
            {
              weight: 2,
              request_timeout: 5_000,
              cache: { mode: 'semantic' },
              strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.a.b.c': 1 }, then: 'x' }], default: 'y' },
              targets: [
                { name: 'x', provider: 'openai', api_key: 'k', custom_host: 'https://llm.internal.example/v1', drop_params: ['logit_bias'] },
                { name: 'y', strategy: { mode: 'single' }, targets: [{ provider: '@mistral', default_params: { temperature: 0.2 } }] },
              ],
            },
            { weight: 1, provider: 'anthropic', api_key: 'k2', retry: { attempts: 0 } },
          ],
        },
        { name: 'backup', provider: 'bedrock', aws_access_key_id: 'A', aws_secret_access_key: 'S', aws_region: 'us-east-1' },
      ],
    };
    expect(parseGatewayConfig(cfg)).toEqual(cfg);
  });

  it('accepts a settings-only config (provider chosen by headers) and a single leaf at the top', () => {
    expect(parseGatewayConfig({ cache: { mode: 'simple' } })).toEqual({ cache: { mode: 'simple' } });
    expect(parseGatewayConfig({ provider: '@openai-prod', input_guardrails: ['pii-check'] })).toEqual({ provider: '@openai-prod', input_guardrails: ['pii-check'] });
  });

  it('accepts inline shorthand guardrails beside saved slugs', () => {
    const cfg = {
      provider: 'openai',
      api_key: 'k',
      input_guardrails: ['gr-slug', { 'default.regexMatch': { rule: 'secret', not: true }, deny: true }],
      output_guardrails: [{ wordCount: { maxWords: 100 }, on_fail: { feedback: { value: -5 } } }],
    };
    expect(parseGatewayConfig(cfg)).toEqual(cfg);
  });
});

describe('gateway config schema: each invalid input names the field', () => {
  const leaf = { provider: 'openai', api_key: 'k' };
  const cases: [string, unknown, string][] = [
    ['retry attempts above 5 on a target', { strategy: { mode: 'fallback' }, targets: [{ ...leaf, retry: { attempts: 6 } }] }, 'targets[0].retry.attempts'],
    ['retry attempts above 5 at the top', { ...leaf, retry: { attempts: 6 } }, 'retry.attempts'],
    ['retry without attempts', { ...leaf, retry: { on_status_codes: [429] } }, 'retry.attempts'],
    ['unknown strategy mode', { strategy: { mode: 'roundrobin' }, targets: [leaf] }, 'strategy.mode'],
    ['single with two targets', { strategy: { mode: 'single' }, targets: [leaf, leaf] }, 'targets'],
    ['fallback with no targets', { strategy: { mode: 'fallback' }, targets: [] }, 'targets'],
    ['strategy without targets', { strategy: { mode: 'fallback' } }, 'targets'],
    ['target with neither provider nor strategy', { strategy: { mode: 'fallback' }, targets: [leaf, { weight: 1 }] }, 'targets[1]'],
    ['provider on a strategy node', { provider: 'openai', strategy: { mode: 'single' }, targets: [leaf] }, 'provider'],
    ['conditional without conditions', { strategy: { mode: 'conditional', default: 'a' }, targets: [{ ...leaf, name: 'a' }] }, 'strategy.conditions'],
    [
      'conditional then naming a missing target',
      {
        strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.t': 'a' }, then: 'a' }, { query: { 'metadata.t': 'b' }, then: 'b' }] },
        targets: [{ ...leaf, name: 'a' }],
      },
      'strategy.conditions[1].then',
    ],
    [
      'conditional default naming a missing target',
      { strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.t': 'a' }, then: 'a' }], default: 'zzz' }, targets: [{ ...leaf, name: 'a' }] },
      'strategy.default',
    ],
    [
      'a nested conditional then naming a target of another level',
      {
        strategy: { mode: 'fallback' },
        targets: [
          { ...leaf, name: 'outer' },
          { strategy: { mode: 'conditional', conditions: [{ query: { 'params.model': 'x' }, then: 'outer' }] }, targets: [{ ...leaf, name: 'inner' }] },
        ],
      },
      'targets[1].strategy.conditions[0].then',
    ],
    ['duplicate target names', { strategy: { mode: 'fallback' }, targets: [{ ...leaf, name: 'a' }, { ...leaf, name: 'b' }, { ...leaf, name: 'a' }] }, 'targets[2].name'],
    ['loadbalance weights all zero', { strategy: { mode: 'loadbalance' }, targets: [{ ...leaf, weight: 0 }, { ...leaf, weight: 0 }] }, 'targets'],
    ['negative weight', { strategy: { mode: 'loadbalance' }, targets: [{ ...leaf, weight: -1 }] }, 'targets[0].weight'],
    [
      'bad regex deep in a query',
      { strategy: { mode: 'conditional', conditions: [{ query: { $or: [{ 'metadata.a': 1 }, { 'params.model': { $regex: '([a-z' } }] }, then: 'a' }] }, targets: [{ ...leaf, name: 'a' }] },
      'strategy.conditions[0].query.$or[1].params.model.$regex',
    ],
    [
      'unknown comparison operator',
      { strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.tier': { $like: 'p%' } }, then: 'a' }] }, targets: [{ ...leaf, name: 'a' }] },
      'strategy.conditions[0].query.metadata.tier.$like',
    ],
    [
      'unknown logical operator',
      { strategy: { mode: 'conditional', conditions: [{ query: { $xor: [] }, then: 'a' }] }, targets: [{ ...leaf, name: 'a' }] },
      'strategy.conditions[0].query.$xor',
    ],
    [
      'bad field path',
      { strategy: { mode: 'conditional', conditions: [{ query: { 'headers.x-tier': 'pro' }, then: 'a' }] }, targets: [{ ...leaf, name: 'a' }] },
      'strategy.conditions[0].query.headers.x-tier',
    ],
    [
      '$and with an empty array',
      { strategy: { mode: 'conditional', conditions: [{ query: { $and: [] }, then: 'a' }] }, targets: [{ ...leaf, name: 'a' }] },
      'strategy.conditions[0].query.$and',
    ],
    [
      '$in with a non-array',
      { strategy: { mode: 'conditional', conditions: [{ query: { 'params.model': { $in: 'gpt-4o' } }, then: 'a' }] }, targets: [{ ...leaf, name: 'a' }] },
      'strategy.conditions[0].query.params.model.$in',
    ],
    ['negative request_timeout', { strategy: { mode: 'fallback' }, targets: [{ ...leaf, request_timeout: -5 }] }, 'targets[0].request_timeout'],
    ['cache max_age zero', { ...leaf, cache: { mode: 'simple', max_age: 0 } }, 'cache.max_age'],
    ['cache unknown mode', { ...leaf, cache: { mode: 'fuzzy' } }, 'cache.mode'],
    ['custom_host with a non-http scheme', { strategy: { mode: 'fallback' }, targets: [{ ...leaf, custom_host: 'file:///etc/passwd' }] }, 'targets[0].custom_host'],
    ['custom_host that is not a URL', { ...leaf, custom_host: 'llm.internal' }, 'custom_host'],
    ['invalid header name in forward_headers', { ...leaf, forward_headers: ['x-ok', 'bad header'] }, 'forward_headers[1]'],
    ['sticky on fallback', { strategy: { mode: 'fallback', sticky: { hash_fields: ['metadata.u'], ttl: 60 } }, targets: [leaf] }, 'strategy.sticky'],
    ['sticky with no hash fields', { strategy: { mode: 'loadbalance', sticky: { hash_fields: [], ttl: 60 } }, targets: [leaf] }, 'strategy.sticky.hash_fields'],
    ['on_status_codes on loadbalance', { strategy: { mode: 'loadbalance', on_status_codes: [500] }, targets: [leaf] }, 'strategy.on_status_codes'],
    ['status code out of range', { strategy: { mode: 'fallback', on_status_codes: [700] }, targets: [leaf] }, 'strategy.on_status_codes[0]'],
    ['unknown top-level field', { ...leaf, retries: 3 }, 'retries'],
    ['unknown field on a target', { strategy: { mode: 'fallback' }, targets: [{ ...leaf, modle: 'x' }] }, 'targets[0].modle'],
    ['legacy v1 shape', { mode: 'fallback', options: [leaf] }, 'mode'],
    ['inline guardrail with a bad key', { ...leaf, input_guardrails: ['ok', { 'not a check': {} }] }, 'input_guardrails[1].not a check'],
    ['inline guardrail with a bad hook setting', { ...leaf, input_guardrails: [{ 'default.contains': { words: ['x'] }, deny: 'yes' }] }, 'input_guardrails[0].deny'],
    ['empty guardrail slug', { ...leaf, output_guardrails: [''] }, 'output_guardrails[0]'],
    ['fetch_integrated_models not boolean', { fetch_integrated_models: 'yes' }, 'fetch_integrated_models'],
  ];

  it.each(cases)('%s', (_label, input, param) => {
    expect(paramOf(input)).toBe(param);
  });

  it('prefixes the path when asked (a saved config body)', () => {
    try {
      parseGatewayConfig({ ...leaf, retry: { attempts: 9 } }, 'config');
      expect.unreachable();
    } catch (e) {
      expect((e as AppError).param).toBe('config.retry.attempts');
      expect((e as AppError).message).toContain('at most 5');
    }
  });
});

describe('conditional query language', () => {
  it('accepts field paths at any depth and rejects others', () => {
    expect(isValidFieldPath('metadata.a')).toBe(true);
    expect(isValidFieldPath('params.a.b.c')).toBe(true);
    expect(isValidFieldPath('url.pathname')).toBe(true);
    expect(isValidFieldPath('metadata')).toBe(false);
    expect(isValidFieldPath('metadata.')).toBe(false);
    expect(isValidFieldPath('metadata..a')).toBe(false);
    expect(isValidFieldPath('url.host')).toBe(false);
  });

  it('reports every problem with its path', () => {
    expect(queryIssues({ 'metadata.a': { $gt: 'abc' }, $or: [{}, { 'params.x': [1] }] }).map((i) => i.path)).toEqual([
      ['metadata.a', '$gt'],
      ['$or', 0],
      ['$or', 1, 'params.x'],
    ]);
    expect(queryIssues({})).toHaveLength(1);
  });
});

describe('collectGuardrailRefs', () => {
  it('collects every saved slug or id from all levels, once each, skipping inline guardrails', () => {
    const cfg = parseGatewayConfig({
      input_guardrails: ['top-in', { 'default.wordCount': { maxWords: 10 } }],
      output_guardrails: ['top-out'],
      strategy: { mode: 'fallback' },
      targets: [
        { provider: 'openai', api_key: 'k', input_guardrails: ['t0-in', 'top-in'] },
        {
          strategy: { mode: 'loadbalance' },
          output_guardrails: ['mid-out'],
          targets: [
            { provider: '@p', output_guardrails: ['gr_0b5e7c1a-0000-4000-8000-000000000001'] },
            { strategy: { mode: 'single' }, targets: [{ provider: '@q', input_guardrails: ['deep-in'] }] },
          ],
        },
      ],
    });
    expect(collectGuardrailRefs(cfg)).toEqual(['top-in', 'top-out', 't0-in', 'mid-out', 'gr_0b5e7c1a-0000-4000-8000-000000000001', 'deep-in']);
    expect(collectGuardrailRefs(parseGatewayConfig({ provider: 'openai' }))).toEqual([]);
  });
});

describe('x-gateway-config header', () => {
  it('tells inline JSON from a saved id or slug', () => {
    expect(looksLikeInlineConfig('  {"provider":"openai"}')).toBe(true);
    expect(looksLikeInlineConfig('pc-routing-123')).toBe(false);
    expect(looksLikeInlineConfig('[1]')).toBe(false);
  });

  it('parses and validates inline JSON', () => {
    expect(configFromHeader(JSON.stringify(fallback))).toEqual(fallback);
  });

  it('answers 400 naming the header on bad JSON or a non-object', () => {
    for (const bad of ['{"strategy":', '[1,2]', 'null']) {
      try {
        configFromHeader(bad);
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(AppError);
        expect((e as AppError).status).toBe(400);
        expect((e as AppError).param).toBe('x-gateway-config');
      }
    }
  });

  it('answers 400 naming the field for a schema error', () => {
    expect(() => configFromHeader('{"provider":"openai","retry":{"attempts":6}}')).toThrowError(/retry\.attempts/);
  });
});
