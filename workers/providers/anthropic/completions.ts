// Legacy `completions` over the Messages API: the prompt becomes one user turn.
import { invalidParameter } from '../../../src/domain/errors.ts';
import type { CallContext, EndpointAdapter } from '../contract.ts';
import { openAIError } from './errors.ts';
import type { Json } from '../shared/json.ts';
import { anthropicChatBody, messagesCall } from './request-chat.ts';
import { textCompletionResponse } from './response-chat.ts';
import { AnthropicStreamTranslator } from './stream-chat.ts';
import { anthropicUsage } from './usage.ts';

function promptText(prompt: unknown): string {
  if (typeof prompt === 'string') return prompt;
  if (Array.isArray(prompt) && prompt.length === 1 && typeof prompt[0] === 'string') return prompt[0];
  throw invalidParameter('prompt', 'Anthropic takes one text prompt per request.');
}

export const completionsEndpoint: EndpointAdapter = {
  request(body: Json, ctx: CallContext) {
    const { prompt, ...rest } = body;
    const chatBody = { ...rest, messages: [{ role: 'user', content: promptText(prompt) }] };
    return messagesCall(anthropicChatBody(chatBody, ctx), ctx);
  },
  response: textCompletionResponse,
  error: (status, json) => openAIError(status, json),
  stream: (ctx) => new AnthropicStreamTranslator(ctx, 'text'),
  usage: anthropicUsage,
};
