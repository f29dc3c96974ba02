import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startStack, type Stack } from '../support/stack.ts';

let stack: Stack;
let base: string;

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  base = stack.controlPlane.httpUrl;
});
afterAll(async () => stack?.close());

async function get(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, { headers });
  return { status: res.status, body: (await res.json()) as any };
}

describe('GET /model-configs/pricing/{provider}/{model}', () => {
  it('answers the price sheet in USD cents per token, without credentials', async () => {
    const r = await get('/model-configs/pricing/openai/gpt-4o-2024-08-06');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      pay_as_you_go: {
        request_token: { price: 0.00025 },
        response_token: { price: 0.001 },
        cache_write_input_token: { price: 0.00025 },
        cache_read_input_token: { price: 0.000125 },
        additional_units: {},
        image: {},
      },
      calculate: {
        request: {
          operation: 'sum',
          operands: [
            { operation: 'multiply', operands: [{ value: 'input_tokens' }, { value: 'rates.request_token' }] },
            { operation: 'multiply', operands: [{ value: 'cache_read_input_tokens' }, { value: 'rates.cache_read_input_token' }] },
            { operation: 'multiply', operands: [{ value: 'cache_write_input_tokens' }, { value: 'rates.cache_write_input_token' }] },
          ],
        },
        response: { operation: 'multiply', operands: [{ value: 'output_tokens' }, { value: 'rates.response_token' }] },
      },
      currency: 'USD',
      finetune_config: { pay_per_token: null, pay_per_hour: null },
    });
    // A key, even a bad one, changes nothing: the route is public.
    expect((await get('/model-configs/pricing/openai/gpt-4o-2024-08-06', { 'x-gateway-api-key': 'nope' })).body).toEqual(r.body);
    const claude = await get('/model-configs/pricing/anthropic/claude-3-5-haiku-20241022');
    expect(claude.body.pay_as_you_go).toMatchObject({ request_token: { price: 0.00008 }, cache_write_input_token: { price: 0.0001 }, cache_read_input_token: { price: 0.000008 } });
  });

  it('accepts model ids with slashes, raw or encoded', async () => {
    const raw = await get('/model-configs/pricing/groq/meta-llama/llama-4-scout-17b-16e-instruct');
    expect(raw.status).toBe(200);
    expect(raw.body.pay_as_you_go.request_token.price).toBe(0.000011);
    expect(await get('/model-configs/pricing/groq/meta-llama%2Fllama-4-scout-17b-16e-instruct')).toEqual(raw);
  });

  it('answers 404 in the error shape for unknown providers and models', async () => {
    for (const path of ['/model-configs/pricing/openai/my-own-model', '/model-configs/pricing/nowhere/gpt-4o']) {
      const r = await get(path);
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ error: { message: expect.stringContaining('No pricing'), type: 'not_found_error', param: 'model', code: 'model_pricing_not_found' } });
    }
  });

  it('is served over GraphQL without credentials too', async () => {
    const res = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ modelPricing(provider: "deepseek", model: "deepseek-chat") { currency pay_as_you_go } }' }),
    });
    const body = (await res.json()) as any;
    expect(body.data.modelPricing).toMatchObject({ currency: 'USD', pay_as_you_go: { request_token: { price: 0.000027 }, cache_read_input_token: { price: 0.000007 } } });
  });
});
