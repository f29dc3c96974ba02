// OpenAI chat shapes that the translating adapters produce (chat.completion and its chunks).
// Shared by the translating adapters (google, vertex-ai, bedrock).
import type { TokenCount } from '../contract.ts';

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface OpenAIToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface OpenAIChoice {
  index: number;
  message: { role: 'assistant'; content: string | null; refusal: null; tool_calls?: OpenAIToolCall[] };
  logprobs: null;
  finish_reason: FinishReason;
}

export const asRecord = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

export const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

export const asNumber = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

export const asString = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** A short random id in OpenAI's style (`chatcmpl-...`, `call_...`). */
export const randomId = (prefix: string): string => `${prefix}${crypto.randomUUID().replace(/-/g, '').slice(0, 24)}`;

/** OpenAI's usage object; cached prompt tokens are reported in prompt_tokens_details. */
export function openAIUsage(tokens: TokenCount): Record<string, unknown> {
  const usage: Record<string, unknown> = {
    prompt_tokens: tokens.prompt,
    completion_tokens: tokens.completion,
    total_tokens: tokens.total,
  };
  if (tokens.cachedPrompt !== undefined) usage.prompt_tokens_details = { cached_tokens: tokens.cachedPrompt };
  return usage;
}

export function chatCompletion(
  id: string,
  model: string,
  nowMs: number,
  choices: OpenAIChoice[],
  tokens: TokenCount | null,
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id,
    object: 'chat.completion',
    created: Math.floor(nowMs / 1000),
    model,
    choices,
  };
  if (tokens) out.usage = openAIUsage(tokens);
  return out;
}

/** Writes `chat.completion.chunk` SSE events with one id and timestamp for the whole stream. */
export class ChunkWriter {
  private readonly id = randomId('chatcmpl-');
  private readonly created: number;

  constructor(
    private readonly model: string,
    nowMs: number,
  ) {
    this.created = Math.floor(nowMs / 1000);
  }

  chunk(choices: unknown[], extra: Record<string, unknown> = {}): string {
    const body = { id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices, ...extra };
    return `data: ${JSON.stringify(body)}\n\n`;
  }

  delta(delta: Record<string, unknown>, index = 0): string {
    return this.chunk([{ index, delta, logprobs: null, finish_reason: null }]);
  }

  /** The last chunk: the finish reason, and the usage when the provider reported it. */
  finish(reason: FinishReason, tokens: TokenCount | null, index = 0): string {
    return this.chunk([{ index, delta: {}, logprobs: null, finish_reason: reason }], tokens ? { usage: openAIUsage(tokens) } : {});
  }

  /** A mid-stream failure, in the shape OpenAI streams errors. */
  error(message: string, type: string, code: string | null = null): string {
    return `data: ${JSON.stringify({ error: { message, type, param: null, code } })}\n\n`;
  }
}

export const DONE = 'data: [DONE]\n\n';

/** The `{error:{message,type,param,code}}` body every adapter's error() returns. */
export function errorBody(message: string, type: string, code: string | null): Record<string, unknown> {
  return { error: { message, type, param: null, code } };
}

/** The error type the gateway uses for a provider status (src/domain/errors.ts ErrorType). */
export function errorTypeFor(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 408) return 'timeout_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'upstream_error';
  return 'invalid_request_error';
}
