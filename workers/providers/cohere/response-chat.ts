// Cohere v2 chat JSON -> OpenAI chat.completion.
import type { CallContext } from '../contract.ts';
import { finishReason } from './finish-reason.ts';
import { arr, obj, str, type Json } from '../shared/json.ts';
import { cohereTokens, openAIUsage } from './usage.ts';

export function chatResponse(raw: unknown, ctx: CallContext): unknown {
  const json = obj(raw);
  const msg = obj(json.message);
  const text = arr(msg.content)
    .map((c) => (obj(c).type === 'text' ? (str(obj(c).text) ?? '') : ''))
    .join('');
  const toolCalls = arr(msg.tool_calls).map((c) => {
    const call = obj(c);
    const fn = obj(call.function);
    return { id: str(call.id) ?? '', type: 'function', function: { name: str(fn.name) ?? '', arguments: str(fn.arguments) ?? '{}' } };
  });
  const message: Json = { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const usage = cohereTokens(json.usage);
  return {
    id: str(json.id) ?? '',
    object: 'chat.completion',
    created: Math.floor(ctx.now() / 1000),
    model: ctx.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(json.finish_reason) }],
    ...(usage ? { usage: openAIUsage(usage) } : {}),
  };
}

export const chatUsage = (json: unknown) => cohereTokens(obj(json).usage);
