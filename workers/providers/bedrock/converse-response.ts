// Bedrock Converse answer -> OpenAI chat.completion; usage; Bedrock errors
// (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax).
import type { TokenCount } from '../contract.ts';
import { asArray, asNumber, asRecord, asString, chatCompletion, errorBody, errorTypeFor, randomId, type FinishReason, type OpenAIChoice, type OpenAIToolCall } from '../shared/openai-chat.ts';

/** Converse's inputTokens exclude cache reads and writes; the contract counts them in the prompt. */
export function converseUsage(json: unknown): TokenCount | null {
  const usage = asRecord(asRecord(json).usage);
  if (Object.keys(usage).length === 0) return null;
  const cacheRead = asNumber(usage.cacheReadInputTokens);
  const prompt = asNumber(usage.inputTokens) + cacheRead + asNumber(usage.cacheWriteInputTokens);
  const completion = asNumber(usage.outputTokens);
  const tokens: TokenCount = { prompt, completion, total: prompt + completion };
  if (usage.cacheReadInputTokens !== undefined) tokens.cachedPrompt = cacheRead;
  return tokens;
}

export function converseFinishReason(reason: unknown): FinishReason {
  switch (reason) {
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'content_filter';
    default:
      return 'stop';
  }
}

export function converseChatResponse(json: unknown, model: string, nowMs: number): Record<string, unknown> {
  const res = asRecord(json);
  let text = '';
  const toolCalls: OpenAIToolCall[] = [];
  for (const raw of asArray(asRecord(asRecord(res.output).message).content)) {
    const block = asRecord(raw);
    if (typeof block.text === 'string') text += block.text;
    const use = asRecord(block.toolUse);
    if (typeof use.name === 'string') {
      toolCalls.push({ id: asString(use.toolUseId) ?? randomId('call_'), type: 'function', function: { name: use.name, arguments: JSON.stringify(use.input ?? {}) } });
    }
  }
  const message: OpenAIChoice['message'] = { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text, refusal: null };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const choice: OpenAIChoice = { index: 0, message, logprobs: null, finish_reason: converseFinishReason(res.stopReason) };
  return chatCompletion(randomId('chatcmpl-'), model, nowMs, [choice], converseUsage(json));
}

/** Bedrock errors are `{message}` (the exception name travels in x-amzn-errortype). */
export function bedrockError(status: number, json: unknown): Record<string, unknown> {
  const body = asRecord(json);
  const message = asString(body.message) ?? asString(body.Message) ?? `Upstream error (HTTP ${status})`;
  return errorBody(message, errorTypeFor(status), asString(body.__type) ?? null);
}
