// Minimal OpenAI chat <-> Anthropic Messages mapping for Claude on Vertex AI.
// LEAD: dedupe with workers/providers/anthropic once that adapter lands (written in parallel,
// deliberately not imported here). Covers system, text, images, tools, tool results, stop,
// sampling and usage; nothing Anthropic-specific beyond that (thinking, citations).
import { invalidParameter } from '../../../src/domain/errors.ts';
import type { TokenCount } from '../contract.ts';
import {
  asArray,
  asNumber,
  asRecord,
  asString,
  chatCompletion,
  randomId,
  type FinishReason,
  type OpenAIChoice,
  type OpenAIToolCall,
} from '../shared/openai-chat.ts';
import { parseDataUrl } from '../google/gemini-request.ts';

export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';
/** Anthropic requires max_tokens; OpenAI callers often omit it. */
export const DEFAULT_MAX_TOKENS = 4096;

type Block = Record<string, unknown>;
interface Message {
  role: 'user' | 'assistant';
  content: Block[];
}

function blocks(content: unknown, param: string): Block[] {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  if (content === null || content === undefined) return [];
  if (!Array.isArray(content)) throw invalidParameter(param, 'content must be a string or an array of parts.');
  return content.map((raw, i) => {
    const part = asRecord(raw);
    if (part.type === 'text') return { type: 'text', text: asString(part.text) ?? '' };
    if (part.type === 'image_url') {
      const url = asString(asRecord(part.image_url).url) ?? '';
      const data = parseDataUrl(url);
      return data
        ? { type: 'image', source: { type: 'base64', media_type: data.mimeType, data: data.data } }
        : { type: 'image', source: { type: 'url', url } };
    }
    throw invalidParameter(`${param}[${i}].type`, `Content part type '${String(part.type)}' is not supported for Claude.`);
  });
}

const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : asArray(content).map((p) => asString(asRecord(p).text) ?? '').join('');

function push(messages: Message[], role: Message['role'], content: Block[]): void {
  if (content.length === 0) return;
  const last = messages[messages.length - 1];
  if (last && last.role === role) last.content.push(...content);
  else messages.push({ role, content });
}

function toolChoice(choice: unknown): Record<string, unknown> | undefined {
  if (choice === 'auto') return { type: 'auto' };
  if (choice === 'required') return { type: 'any' };
  if (choice === 'none') return { type: 'none' };
  const name = asString(asRecord(asRecord(choice).function).name);
  return name ? { type: 'tool', name } : undefined;
}

/** The rawPredict body (no `model`: it is in the URL) for an OpenAI chat request. */
export function claudeChatBody(body: Record<string, unknown>, stream: boolean): Record<string, unknown> {
  if (!Array.isArray(body.messages)) throw invalidParameter('messages', 'messages is required (an array).');
  const system: string[] = [];
  const messages: Message[] = [];
  body.messages.forEach((raw, i) => {
    const m = asRecord(raw);
    const param = `messages[${i}]`;
    if (m.role === 'system' || m.role === 'developer') system.push(textOf(m.content));
    else if (m.role === 'user') push(messages, 'user', blocks(m.content, `${param}.content`));
    else if (m.role === 'assistant') {
      const content = blocks(m.content, `${param}.content`).filter((b) => b.type !== 'text' || b.text !== '');
      asArray(m.tool_calls).forEach((rawCall, j) => {
        const call = asRecord(rawCall);
        const fn = asRecord(call.function);
        let input: unknown = {};
        try {
          input = typeof fn.arguments === 'string' && fn.arguments.trim() ? JSON.parse(fn.arguments) : {};
        } catch {
          throw invalidParameter(`${param}.tool_calls[${j}].function.arguments`, 'function.arguments must be a JSON string.');
        }
        content.push({ type: 'tool_use', id: asString(call.id) ?? randomId('toolu_'), name: asString(fn.name) ?? '', input });
      });
      push(messages, 'assistant', content);
    } else if (m.role === 'tool') {
      push(messages, 'user', [{ type: 'tool_result', tool_use_id: asString(m.tool_call_id) ?? '', content: textOf(m.content) }]);
    } else throw invalidParameter(`${param}.role`, `Unknown message role '${String(m.role)}'.`);
  });

  const out: Record<string, unknown> = {
    anthropic_version: VERTEX_ANTHROPIC_VERSION,
    messages,
    max_tokens: body.max_completion_tokens ?? body.max_tokens ?? DEFAULT_MAX_TOKENS,
  };
  if (system.length > 0) out.system = system.join('\n');
  if (stream) out.stream = true;
  if (typeof body.temperature === 'number') out.temperature = body.temperature;
  if (typeof body.top_p === 'number') out.top_p = body.top_p;
  if (typeof body.top_k === 'number') out.top_k = body.top_k;
  if (typeof body.stop === 'string') out.stop_sequences = [body.stop];
  else if (Array.isArray(body.stop)) out.stop_sequences = body.stop;
  if (typeof body.user === 'string') out.metadata = { user_id: body.user };
  const tools = asArray(body.tools)
    .map((t) => asRecord(t))
    .filter((t) => t.type === 'function')
    .map((t) => {
      const fn = asRecord(t.function);
      const tool: Record<string, unknown> = { name: fn.name, input_schema: fn.parameters ?? { type: 'object', properties: {} } };
      if (fn.description !== undefined) tool.description = fn.description;
      return tool;
    });
  if (tools.length > 0) {
    out.tools = tools;
    const choice = toolChoice(body.tool_choice);
    if (choice) out.tool_choice = choice;
  }
  return out;
}

/** Anthropic usage; cache reads and writes are prompt tokens too. */
export function anthropicUsage(usageValue: unknown): TokenCount | null {
  const usage = asRecord(usageValue);
  if (Object.keys(usage).length === 0) return null;
  const cacheRead = asNumber(usage.cache_read_input_tokens);
  const prompt = asNumber(usage.input_tokens) + cacheRead + asNumber(usage.cache_creation_input_tokens);
  const completion = asNumber(usage.output_tokens);
  const tokens: TokenCount = { prompt, completion, total: prompt + completion };
  if (usage.cache_read_input_tokens !== undefined) tokens.cachedPrompt = cacheRead;
  return tokens;
}

export function claudeFinishReason(reason: unknown): FinishReason {
  if (reason === 'tool_use') return 'tool_calls';
  if (reason === 'max_tokens' || reason === 'model_context_window_exceeded') return 'length';
  if (reason === 'refusal') return 'content_filter';
  return 'stop';
}

export function claudeChatResponse(json: unknown, model: string, nowMs: number): Record<string, unknown> {
  const res = asRecord(json);
  let text = '';
  const toolCalls: OpenAIToolCall[] = [];
  for (const raw of asArray(res.content)) {
    const block = asRecord(raw);
    if (block.type === 'text') text += asString(block.text) ?? '';
    if (block.type === 'tool_use') {
      toolCalls.push({ id: asString(block.id) ?? randomId('call_'), type: 'function', function: { name: asString(block.name) ?? '', arguments: JSON.stringify(block.input ?? {}) } });
    }
  }
  const message: OpenAIChoice['message'] = { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text, refusal: null };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const choice: OpenAIChoice = { index: 0, message, logprobs: null, finish_reason: claudeFinishReason(res.stop_reason) };
  return chatCompletion(asString(res.id) ?? randomId('chatcmpl-'), asString(res.model) ?? model, nowMs, [choice], anthropicUsage(res.usage));
}
