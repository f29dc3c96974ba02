// Anthropic Message JSON -> OpenAI chat.completion (and text_completion for `completions`).
import type { CallContext } from '../contract.ts';
import { finishReason } from './finish-reason.ts';
import { arr, obj, str, type Json } from '../shared/json.ts';
import { anthropicUsage, openAIUsage } from './usage.ts';

function parts(json: Json): { text: string; toolCalls: Json[] } {
  let text = '';
  const toolCalls: Json[] = [];
  for (const raw of arr(json.content)) {
    const block = obj(raw);
    if (block.type === 'text') text += str(block.text) ?? '';
    else if (block.type === 'tool_use')
      toolCalls.push({
        id: str(block.id) ?? '',
        type: 'function',
        function: { name: str(block.name) ?? '', arguments: JSON.stringify(block.input ?? {}) },
      });
  }
  return { text, toolCalls };
}

const envelope = (json: Json, ctx: CallContext, object: string): Json => ({
  id: str(json.id) ?? '',
  object,
  created: Math.floor(ctx.now() / 1000),
  model: str(json.model) ?? ctx.model,
});

export function chatResponse(raw: unknown, ctx: CallContext): unknown {
  const json = obj(raw);
  const { text, toolCalls } = parts(json);
  const message: Json = { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const usage = anthropicUsage(json);
  return {
    ...envelope(json, ctx, 'chat.completion'),
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(json.stop_reason) }],
    ...(usage ? { usage: openAIUsage(usage) } : {}),
  };
}

export function textCompletionResponse(raw: unknown, ctx: CallContext): unknown {
  const json = obj(raw);
  const usage = anthropicUsage(json);
  return {
    ...envelope(json, ctx, 'text_completion'),
    choices: [{ text: parts(json).text, index: 0, logprobs: null, finish_reason: finishReason(json.stop_reason) }],
    ...(usage ? { usage: openAIUsage(usage) } : {}),
  };
}
