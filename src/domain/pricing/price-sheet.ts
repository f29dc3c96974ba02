// The public price sheet of one model (control-plane-schemas 2.21, `GET /model-configs/pricing/
// {provider}/{model}`): prices in USD cents per token, and how a request's cost is computed from
// them as expression trees. Pure.
import { attoToDecimal, toAtto } from './decimal.ts';
import type { PriceMatch } from './types.ts';

export interface PriceSheet {
  pay_as_you_go: {
    request_token: { price: number };
    response_token: { price: number };
    cache_write_input_token: { price: number };
    cache_read_input_token: { price: number };
    additional_units: Record<string, { price: number }>;
    image: Record<string, Record<string, { price: number }>>;
  };
  calculate: { request: Expression; response: Expression };
  currency: 'USD';
  finetune_config: { pay_per_token: null; pay_per_hour: null };
}

export type Expression = { operation: 'sum' | 'multiply'; operands: (Expression | { value: string })[] };

const cents = (usdPerToken: string): number => Number(attoToDecimal(toAtto(usdPerToken), 2));
const times = (count: string, rate: string): Expression => ({ operation: 'multiply', operands: [{ value: count }, { value: `rates.${rate}` }] });

/**
 * Cache reads without a discount, and cache writes where the provider does not charge extra, cost
 * the input price (as in costOf). `input_tokens` in `calculate` are the prompt tokens neither read
 * from nor written to the cache. The catalogue prices text tokens only: audio, image and
 * additional units (web search …) are absent, and no fine-tuning prices are published here.
 */
export function priceSheet(match: PriceMatch): PriceSheet {
  const p = match.price;
  return {
    pay_as_you_go: {
      request_token: { price: cents(p.input) },
      response_token: { price: cents(p.output) },
      cache_write_input_token: { price: cents(p.cache_write ?? p.input) },
      cache_read_input_token: { price: cents(p.cached_input ?? p.input) },
      additional_units: {},
      image: {},
    },
    calculate: {
      request: {
        operation: 'sum',
        operands: [times('input_tokens', 'request_token'), times('cache_read_input_tokens', 'cache_read_input_token'), times('cache_write_input_tokens', 'cache_write_input_token')],
      },
      response: times('output_tokens', 'response_token'),
    },
    currency: 'USD',
    finetune_config: { pay_per_token: null, pay_per_hour: null },
  };
}
