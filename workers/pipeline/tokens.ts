export interface Tokens {
  prompt: number;
  completion: number;
  total: number;
  /** Of `prompt`, tokens read from the provider's prompt cache (priced at cached_input; issue 8 item 4). */
  cachedPrompt?: number;
}

export const NO_TOKENS: Tokens = { prompt: 0, completion: 0, total: 0 };

const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0);

/** Tokens as the provider reported them (spec: token counts come from the provider). */
export function tokensFromUsage(usage: unknown): Tokens | null {
  if (!usage || typeof usage !== 'object') return null;
  const u = usage as Record<string, unknown>;
  const prompt = n(u.prompt_tokens ?? u.input_tokens);
  const completion = n(u.completion_tokens ?? u.output_tokens);
  const total = n(u.total_tokens) || prompt + completion;
  // OpenAI: prompt_tokens_details.cached_tokens (Responses: input_tokens_details).
  const details = (u.prompt_tokens_details ?? u.input_tokens_details) as Record<string, unknown> | undefined;
  const cached = details && typeof details === 'object' ? details.cached_tokens : undefined;
  return typeof cached === 'number' && cached > 0 ? { prompt, completion, total, cachedPrompt: n(cached) } : { prompt, completion, total };
}
