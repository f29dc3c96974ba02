export interface Tokens {
  prompt: number;
  completion: number;
  total: number;
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
  return { prompt, completion, total };
}
