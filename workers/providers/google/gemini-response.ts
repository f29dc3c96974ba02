// Gemini GenerateContentResponse -> OpenAI chat.completion, its usage and its errors
// (https://ai.google.dev/api/generate-content#generatecontentresponse).
import type { TokenCount } from '../contract.ts';
import { toolCallId } from './gemini-request.ts';
import {
  asArray,
  asNumber,
  asRecord,
  asString,
  chatCompletion,
  errorBody,
  errorTypeFor,
  randomId,
  type FinishReason,
  type OpenAIChoice,
  type OpenAIToolCall,
} from '../shared/openai-chat.ts';

/** usageMetadata -> tokens. Thinking tokens are billed as output, so they count as completion. */
export function geminiUsage(json: unknown): TokenCount | null {
  const meta = asRecord(asRecord(json).usageMetadata);
  if (Object.keys(meta).length === 0) return null;
  const prompt = asNumber(meta.promptTokenCount);
  const completion = asNumber(meta.candidatesTokenCount) + asNumber(meta.thoughtsTokenCount);
  const total = typeof meta.totalTokenCount === 'number' ? meta.totalTokenCount : prompt + completion;
  const tokens: TokenCount = { prompt, completion, total };
  if (typeof meta.cachedContentTokenCount === 'number') tokens.cachedPrompt = meta.cachedContentTokenCount;
  return tokens;
}

export function geminiFinishReason(reason: unknown, hasToolCalls: boolean): FinishReason {
  if (hasToolCalls) return 'tool_calls';
  switch (reason) {
    case 'MAX_TOKENS':
      return 'length';
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY':
      return 'content_filter';
    default:
      return 'stop';
  }
}

/** The visible text and tool calls of one candidate's parts (thought summaries are left out). */
export function partsToMessage(parts: unknown[]): { text: string; toolCalls: OpenAIToolCall[] } {
  let text = '';
  const toolCalls: OpenAIToolCall[] = [];
  for (const raw of parts) {
    const part = asRecord(raw);
    if (part.thought === true) continue;
    if (typeof part.text === 'string') text += part.text;
    const call = asRecord(part.functionCall);
    if (typeof call.name === 'string') {
      toolCalls.push({
        id: toolCallId(asString(call.id) ?? randomId('call_'), part.thoughtSignature),
        type: 'function',
        function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) },
      });
    }
  }
  return { text, toolCalls };
}

export function geminiChatResponse(json: unknown, model: string, nowMs: number): Record<string, unknown> {
  const res = asRecord(json);
  const choices: OpenAIChoice[] = asArray(res.candidates).map((raw, i) => {
    const candidate = asRecord(raw);
    const { text, toolCalls } = partsToMessage(asArray(asRecord(candidate.content).parts));
    const message: OpenAIChoice['message'] = { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text, refusal: null };
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    return {
      index: typeof candidate.index === 'number' ? candidate.index : i,
      message,
      logprobs: null,
      finish_reason: geminiFinishReason(candidate.finishReason, toolCalls.length > 0),
    };
  });
  // A prompt blocked before generation has no candidates: answer one filtered, empty choice.
  if (choices.length === 0 && asString(asRecord(res.promptFeedback).blockReason)) {
    choices.push({ index: 0, message: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: 'content_filter' });
  }
  const id = asString(res.responseId) ? `chatcmpl-${res.responseId as string}` : randomId('chatcmpl-');
  return chatCompletion(id, asString(res.modelVersion) ?? model, nowMs, choices, geminiUsage(json));
}

/** Google's `{error:{code,message,status}}` (also sent as a one-element array by some endpoints). */
export function googleError(status: number, json: unknown): Record<string, unknown> {
  const err = asRecord(asRecord(Array.isArray(json) ? json[0] : json).error);
  const message = asString(err.message) ?? `Upstream error (HTTP ${status})`;
  return errorBody(message, errorTypeFor(status), asString(err.status) ?? (typeof err.code === 'number' ? String(err.code) : null));
}
