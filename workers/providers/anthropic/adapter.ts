// Anthropic (https://docs.anthropic.com/en/api): OpenAI chat and completions over the Messages
// API, plus `messages` for callers that speak Anthropic's own API (spec: provider headers,
// "Anthropic: -anthropic-beta, -anthropic-version, x-api-key").
import type { CallContext, ProviderAdapter } from '../contract.ts';
import { completionsEndpoint } from './completions.ts';
import { openAIError } from './errors.ts';
import { messagesEndpoint } from './messages.ts';
import { chatRequest } from './request-chat.ts';
import { chatResponse } from './response-chat.ts';
import { AnthropicStreamTranslator } from './stream-chat.ts';
import { ANTHROPIC_BASE_URL, ANTHROPIC_VERSION } from './url.ts';
import { anthropicUsage } from './usage.ts';

export const anthropicAdapter: ProviderAdapter = {
  name: 'anthropic',
  baseUrl: () => ANTHROPIC_BASE_URL,
  authHeaders: (ctx: CallContext) => ({
    'x-api-key': ctx.credentials.apiKey ?? '',
    'anthropic-version': ANTHROPIC_VERSION,
  }),
  // A caller's anthropic-version replaces the default; anthropic-beta turns on beta features.
  forwardedHeaders: ['anthropic-beta', 'anthropic-version'],
  endpoints: {
    'chat.completions': {
      request: chatRequest,
      response: chatResponse,
      error: (status, json) => openAIError(status, json),
      stream: (ctx) => new AnthropicStreamTranslator(ctx, 'chat'),
      usage: anthropicUsage,
    },
    completions: completionsEndpoint,
    messages: messagesEndpoint,
  },
  // The reference gateway collapses a duplicated /v1 (callers often send /v1/v1/messages).
  passThroughUrl: (path: string, ctx: CallContext) =>
    `${ctx.customHost ?? ANTHROPIC_BASE_URL}/${path.replace(/^(v1\/)+/, '')}`,
};
