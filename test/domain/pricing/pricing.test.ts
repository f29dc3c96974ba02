import { describe, it, expect } from 'vitest';
import { PRICING_CATALOGUE } from '../../../src/domain/pricing/catalogue.ts';
import { costOf } from '../../../src/domain/pricing/cost.ts';
import { attoToDecimal, toAtto } from '../../../src/domain/pricing/decimal.ts';
import { findPrice } from '../../../src/domain/pricing/find-price.ts';

describe('decimal', () => {
  it('converts decimals and numbers exactly, exponent forms included', () => {
    expect(toAtto('0.0000025')).toBe(2_500_000_000_000n);
    expect(toAtto(0.000000075)).toBe(75_000_000_000n);
    expect(toAtto('1.25e-6')).toBe(1_250_000_000_000n);
    expect(toAtto('.5')).toBe(500_000_000_000_000_000n);
    expect(attoToDecimal(2_500_000_000_000n)).toBe('0.0000025');
    expect(attoToDecimal(0n)).toBe('0');
    expect(attoToDecimal(12_340_000_000_000_000_000n)).toBe('12.34');
    expect(attoToDecimal(2_500_000_000_000n, 2)).toBe('0.00025');
    expect(() => toAtto('-1')).toThrow(RangeError);
    expect(() => toAtto('abc')).toThrow(RangeError);
    expect(() => toAtto(Number.NaN)).toThrow(RangeError);
  });
});

describe('catalogue', () => {
  it('covers the main providers with per-token decimal strings', () => {
    for (const p of ['openai', 'azure-openai', 'anthropic', 'google', 'vertex-ai', 'mistral-ai', 'cohere', 'groq', 'deepseek', 'bedrock']) {
      expect(Object.keys(PRICING_CATALOGUE[p]!).length, p).toBeGreaterThan(1);
    }
    expect(PRICING_CATALOGUE.openai!['gpt-4o']).toEqual({ input: '0.0000025', output: '0.00001', cached_input: '0.00000125', cache_write: null });
    expect(PRICING_CATALOGUE.anthropic!['claude-3-5-haiku']).toEqual({ input: '0.0000008', output: '0.000004', cached_input: '0.00000008', cache_write: '0.000001' });
    for (const table of Object.values(PRICING_CATALOGUE)) {
      for (const price of Object.values(table)) {
        for (const v of [price.input, price.output, price.cached_input, price.cache_write]) if (v !== null) expect(v).toMatch(/^\d+(\.\d+)?$/);
      }
    }
  });
});

describe('findPrice', () => {
  it('matches exactly first, then normalised ids, dated suffixes, then the longest prefix', () => {
    expect(findPrice('openai', 'gpt-4o')).toMatchObject({ model: 'gpt-4o', rule: 'exact', source: 'catalogue' });
    expect(findPrice('openai', 'gpt-4o-mini-2024-07-18')).toMatchObject({ model: 'gpt-4o-mini', rule: 'dated_suffix' });
    expect(findPrice('openai', 'gpt-4o-2024-08-06')).toMatchObject({ model: 'gpt-4o', rule: 'dated_suffix' });
    expect(findPrice('openai', 'gpt-4-0613')).toMatchObject({ model: 'gpt-4', rule: 'dated_suffix' });
    expect(findPrice('OpenAI', 'GPT-4.1-Mini')).toMatchObject({ model: 'gpt-4.1-mini', rule: 'exact' });
    expect(findPrice('openai', 'openai/gpt-4o')).toMatchObject({ model: 'gpt-4o', rule: 'normalised' });
    expect(findPrice('anthropic', 'claude-3-5-sonnet-20241022')).toMatchObject({ model: 'claude-3-5-sonnet' });
    expect(findPrice('anthropic', 'claude-3-5-sonnet-latest')).toMatchObject({ model: 'claude-3-5-sonnet' });
    expect(findPrice('anthropic', 'claude-opus-4-1-20250805')).toMatchObject({ model: 'claude-opus-4-1' });
    expect(findPrice('anthropic', 'claude-opus-4-20250514')).toMatchObject({ model: 'claude-opus-4' });
    expect(findPrice('vertex-ai', 'claude-sonnet-4@20250514')).toMatchObject({ model: 'claude-sonnet-4', rule: 'normalised' });
    expect(findPrice('google', 'gemini-2.5-flash-lite')).toMatchObject({ model: 'gemini-2.5-flash-lite', rule: 'exact' });
    expect(findPrice('google', 'gemini-2.5-flash-preview-05-20')).toMatchObject({ model: 'gemini-2.5-flash', rule: 'dated_suffix' });
    expect(findPrice('bedrock', 'anthropic.claude-sonnet-4-20250514-v1:0')).toMatchObject({ model: 'anthropic.claude-sonnet-4' });
    expect(findPrice('bedrock', 'us.anthropic.claude-3-7-sonnet-20250219-v1:0')).toMatchObject({ model: 'anthropic.claude-3-7-sonnet' });
    expect(findPrice('bedrock', 'amazon.titan-embed-text-v2:0')).toMatchObject({ model: 'amazon.titan-embed-text-v2' });
    expect(findPrice('cohere', 'command-r7b-12-2024')).toMatchObject({ model: 'command-r7b' });
    expect(findPrice('cohere', 'command-r-plus-08-2024')).toMatchObject({ model: 'command-r-plus' });
    expect(findPrice('groq', 'openai/gpt-oss-120b')).toMatchObject({ model: 'openai/gpt-oss-120b', rule: 'exact' });
    expect(findPrice('mistral', 'mistral-large-latest')).toMatchObject({ provider: 'mistral-ai', model: 'mistral-large' });
    expect(findPrice('azure-openai', 'gpt-4o')?.price).toEqual(findPrice('openai', 'gpt-4o')?.price);
    expect(findPrice('openai', 'my-finetune')).toBeNull();
    expect(findPrice('nowhere', 'gpt-4o')).toBeNull();
    expect(findPrice('openai', 'constructor')).toBeNull();
  });

  it('prefers an operator custom price for exactly that provider and model', () => {
    const custom = [{ provider: 'openai', model: 'gpt-4o', input: '0.000001', output: 0.000002 }, { provider: 'ollama', model: 'llama3', input: 0, output: 0 }];
    expect(findPrice('openai', 'gpt-4o', custom)).toEqual({
      provider: 'openai',
      model: 'gpt-4o',
      source: 'custom',
      rule: 'exact',
      price: { input: '0.000001', output: '0.000002', cached_input: null, cache_write: null },
    });
    expect(findPrice('openai', 'gpt-4o-mini', custom)).toMatchObject({ source: 'catalogue' });
    expect(findPrice('ollama', 'LLAMA3', custom)).toMatchObject({ source: 'custom', price: { input: '0', output: '0' } });
  });
});

describe('costOf', () => {
  const gpt4o = PRICING_CATALOGUE.openai!['gpt-4o']!;
  it('prices prompt, cached prompt and completion tokens exactly', () => {
    // 1000 × 2.5e-6 + 2000 × 1e-5 = 0.0025 + 0.02
    expect(costOf({ prompt: 1000, completion: 2000 }, gpt4o)).toEqual({ usd: '0.0225', usd_number: 0.0225, cents: 2.25, input: '0.0025', output: '0.02' });
    // 600 uncached × 2.5e-6 + 400 cached × 1.25e-6 = 0.0015 + 0.0005
    expect(costOf({ prompt: 1000, cachedPrompt: 400, completion: 0 }, gpt4o).usd).toBe('0.002');
    // Floats would drift here: 3 × 0.1 ≠ 0.3.
    expect(costOf({ prompt: 3, completion: 0 }, { input: '0.1', output: '0', cached_input: null, cache_write: null }).usd).toBe('0.3');
    expect(costOf({ prompt: 10_000_000, completion: 10_000_000 }, PRICING_CATALOGUE.openai!['gpt-4o-mini']!).usd).toBe('7.5');
  });

  it('charges cache writes where the provider does, caps cached tokens at the prompt, refuses bad counts', () => {
    const haiku = PRICING_CATALOGUE.anthropic!['claude-3-5-haiku']!;
    // 100 × 8e-7 + 100 × 8e-8 + 100 × 1e-6 = 0.00008 + 0.000008 + 0.0001
    expect(costOf({ prompt: 300, cachedPrompt: 100, cacheWritePrompt: 100, completion: 0 }, haiku).usd).toBe('0.000188');
    const noCache = PRICING_CATALOGUE.openai!['gpt-4']!;
    expect(costOf({ prompt: 10, cachedPrompt: 10, completion: 0 }, noCache).usd).toBe(costOf({ prompt: 10, completion: 0 }, noCache).usd);
    expect(costOf({ prompt: 10, cachedPrompt: 50, completion: 0 }, gpt4o).usd).toBe('0.0000125');
    expect(() => costOf({ prompt: -1, completion: 0 }, gpt4o)).toThrow(RangeError);
    expect(() => costOf({ prompt: 1.5, completion: 0 }, gpt4o)).toThrow(RangeError);
  });
});
