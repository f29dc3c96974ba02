// Anthropic's usage -> TokenCount. `input_tokens` excludes cache reads and cache writes;
// the contract counts cached prompt tokens as part of the prompt.
import type { TokenCount } from '../contract.ts';
import { isObj, num, obj } from '../shared/json.ts';

export interface AnthropicUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheCreation?: number;
}

/** Merges the fields an event reports (message_delta repeats cumulative counts). */
export function mergeUsage(into: AnthropicUsage, raw: unknown): AnthropicUsage {
  const u = obj(raw);
  const set = (key: keyof AnthropicUsage, v: unknown): void => {
    const n = num(v);
    if (n !== undefined) into[key] = n;
  };
  set('input', u.input_tokens);
  set('output', u.output_tokens);
  set('cacheRead', u.cache_read_input_tokens);
  set('cacheCreation', u.cache_creation_input_tokens);
  return into;
}

export function tokenCount(u: AnthropicUsage): TokenCount {
  const prompt = (u.input ?? 0) + (u.cacheRead ?? 0) + (u.cacheCreation ?? 0);
  const completion = u.output ?? 0;
  const out: TokenCount = { prompt, completion, total: prompt + completion };
  if (u.cacheRead !== undefined) out.cachedPrompt = u.cacheRead;
  return out;
}

/** Tokens of a Messages API JSON answer. */
export function anthropicUsage(json: unknown): TokenCount | null {
  const u = obj(json).usage;
  if (!isObj(u)) return null;
  return tokenCount(mergeUsage({}, u));
}

/** OpenAI's usage object for a TokenCount. */
export function openAIUsage(t: TokenCount): Record<string, unknown> {
  const out: Record<string, unknown> = {
    prompt_tokens: t.prompt,
    completion_tokens: t.completion,
    total_tokens: t.total,
  };
  if (t.cachedPrompt !== undefined) out.prompt_tokens_details = { cached_tokens: t.cachedPrompt };
  return out;
}
