// Cohere usage -> TokenCount. `billed_units` is what Cohere charges for; `tokens` (model tokens,
// including its prompt template) is the fallback when billed units are absent.
import type { TokenCount } from '../contract.ts';
import { isObj, num, obj } from '../shared/json.ts';

export function cohereTokens(usage: unknown): TokenCount | null {
  if (!isObj(usage)) return null;
  const billed = obj(usage.billed_units);
  const tokens = obj(usage.tokens);
  const prompt = num(billed.input_tokens) ?? num(tokens.input_tokens);
  const completion = num(billed.output_tokens) ?? num(tokens.output_tokens);
  if (prompt === undefined && completion === undefined) return null;
  return { prompt: prompt ?? 0, completion: completion ?? 0, total: (prompt ?? 0) + (completion ?? 0) };
}

export const openAIUsage = (t: TokenCount): Record<string, number> => ({
  prompt_tokens: t.prompt,
  completion_tokens: t.completion,
  total_tokens: t.total,
});
