// The cost of one request from its token counts and a price (issue 8 accounting). Pure, exact.
import { attoToDecimal, toAtto } from './decimal.ts';
import type { ModelPrice } from './types.ts';

export interface TokenCounts {
  /** All prompt tokens, cached ones included (OpenAI's `prompt_tokens` convention; adapters normalise to it). */
  prompt: number;
  completion: number;
  /** Of `prompt`, those read from the provider's prompt cache. */
  cachedPrompt?: number;
  /** Of `prompt`, those written to the prompt cache (charged at `cache_write` where the provider does). */
  cacheWritePrompt?: number;
}

export interface Cost {
  /** Exact USD as a decimal string (e.g. "0.0125"). */
  usd: string;
  /** The same as a number, for counters and analytics (rounded to the nearest double). */
  usd_number: number;
  /** USD cents as a number (how the request log stores cost). */
  cents: number;
  /** Parts, exact USD strings. */
  input: string;
  output: string;
}

function count(name: string, v: number | undefined): bigint {
  const n = v ?? 0;
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${name} must be a non-negative integer, got ${n}`);
  return BigInt(n);
}

/**
 * (prompt − cached − cache-written) × input + cached × cached_input (input when null)
 * + cache-written × cache_write (input when null) + completion × output.
 * Cached and cache-written tokens are capped by `prompt` (a provider never bills more prompt tokens than it saw).
 */
export function costOf(tokens: TokenCounts, price: ModelPrice): Cost {
  const prompt = count('prompt', tokens.prompt);
  let cached = count('cachedPrompt', tokens.cachedPrompt);
  if (cached > prompt) cached = prompt;
  let written = count('cacheWritePrompt', tokens.cacheWritePrompt);
  if (written > prompt - cached) written = prompt - cached;
  const completion = count('completion', tokens.completion);
  const input = toAtto(price.input);
  const inputAtto =
    (prompt - cached - written) * input + cached * (price.cached_input === null ? input : toAtto(price.cached_input)) + written * (price.cache_write === null ? input : toAtto(price.cache_write));
  const outputAtto = completion * toAtto(price.output);
  const total = inputAtto + outputAtto;
  const usd = attoToDecimal(total);
  return { usd, usd_number: Number(usd), cents: Number(attoToDecimal(total, 2)), input: attoToDecimal(inputAtto), output: attoToDecimal(outputAtto) };
}
