// OpenAI chat.completions body -> Anthropic Messages API body (POST /v1/messages).
import { invalidParameter } from '../../../src/domain/errors.ts';
import type { CallContext, UpstreamCall } from '../contract.ts';
import { anthropicUrl } from './url.ts';
import { arr, assignDefined, isObj, obj, str, type Json } from '../shared/json.ts';

/** Anthropic requires max_tokens; OpenAI callers usually leave it out. */
export const DEFAULT_MAX_TOKENS = 4096;

interface Block extends Json {
  type: string;
}
interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: string | Block[];
}

/** `data:<mime>;base64,<data>` -> base64 source; anything else is fetched by Anthropic from its URL. */
function mediaSource(url: string, param: string): Json {
  if (url.startsWith('data:')) {
    const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
    if (!m) throw invalidParameter(param, 'Only base64 data URLs are supported.');
    return { type: 'base64', media_type: m[1], data: m[2] };
  }
  return { type: 'url', url };
}

function withCache(block: Block, part: Json): Block {
  if (part.cache_control !== undefined) block.cache_control = part.cache_control;
  return block;
}

/** One OpenAI content part -> one Anthropic block. */
function contentBlock(part: unknown, param: string): Block {
  const p = obj(part);
  switch (p.type) {
    case 'text':
      return withCache({ type: 'text', text: str(p.text) ?? '' }, p);
    case 'image_url': {
      const url = str(obj(p.image_url).url) ?? str(p.image_url);
      if (!url) throw invalidParameter(`${param}.image_url.url`, 'Missing image URL.');
      return withCache({ type: 'image', source: mediaSource(url, `${param}.image_url.url`) }, p);
    }
    case 'file': {
      const file = obj(p.file);
      const data = str(file.file_data);
      if (!data) throw invalidParameter(`${param}.file.file_data`, 'Anthropic needs the file inline as a data URL.');
      return withCache({ type: 'document', source: mediaSource(data, `${param}.file.file_data`) }, p);
    }
    default:
      throw invalidParameter(`${param}.type`, `Content part type '${String(p.type)}' is not supported by Anthropic.`);
  }
}

function blocksOf(content: unknown, param: string): Block[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return arr(content).map((part, i) => contentBlock(part, `${param}[${i}]`));
}

function parseArguments(raw: unknown, param: string): unknown {
  if (isObj(raw)) return raw;
  const text = str(raw) ?? '';
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw invalidParameter(param, 'Tool call arguments must be a JSON object.');
  }
}

/** Consecutive turns of one role become one message (tool results of parallel calls must share one). */
function append(out: AnthropicMessage[], msg: AnthropicMessage): void {
  const last = out[out.length - 1];
  if (!last || last.role !== msg.role) {
    out.push(msg);
    return;
  }
  const asBlocks = (c: string | Block[]): Block[] => (typeof c === 'string' ? (c ? [{ type: 'text', text: c }] : []) : c);
  last.content = [...asBlocks(last.content), ...asBlocks(msg.content)];
}

export function convertMessages(messages: unknown): { system: string | Block[] | undefined; messages: AnthropicMessage[] } {
  if (!Array.isArray(messages)) throw invalidParameter('messages', 'messages must be an array.');
  const system: Block[] = [];
  const out: AnthropicMessage[] = [];
  messages.forEach((raw, i) => {
    const m = obj(raw);
    const param = `messages[${i}]`;
    switch (m.role) {
      case 'system':
      case 'developer':
        for (const b of blocksOf(m.content, `${param}.content`)) if (b.type === 'text') system.push(b);
        break;
      case 'user':
        append(out, {
          role: 'user',
          content: typeof m.content === 'string' ? m.content : blocksOf(m.content, `${param}.content`),
        });
        break;
      case 'assistant': {
        const calls = arr(m.tool_calls);
        if (calls.length === 0 && typeof m.content === 'string') {
          append(out, { role: 'assistant', content: m.content });
          break;
        }
        const blocks = blocksOf(m.content, `${param}.content`).filter((b) => b.type === 'text');
        calls.forEach((c, j) => {
          const call = obj(c);
          const fn = obj(call.function);
          blocks.push({
            type: 'tool_use',
            id: str(call.id) ?? '',
            name: str(fn.name) ?? '',
            input: parseArguments(fn.arguments, `${param}.tool_calls[${j}].function.arguments`),
          });
        });
        append(out, { role: 'assistant', content: blocks });
        break;
      }
      case 'tool': {
        const id = str(m.tool_call_id);
        if (!id) throw invalidParameter(`${param}.tool_call_id`, 'Tool messages need tool_call_id.');
        const content = typeof m.content === 'string' ? m.content : blocksOf(m.content, `${param}.content`);
        append(out, { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content }] });
        break;
      }
      default:
        throw invalidParameter(`${param}.role`, `Role '${String(m.role)}' is not supported by Anthropic.`);
    }
  });
  const cached = system.some((b) => b.cache_control !== undefined);
  const systemOut = system.length === 0 ? undefined : cached ? system : system.map((b) => str(b.text) ?? '').join('\n');
  return { system: systemOut, messages: out };
}

function convertTools(tools: unknown): Json[] | undefined {
  if (tools === undefined) return undefined;
  return arr(tools).map((t, i) => {
    const tool = obj(t);
    const fn = obj(tool.function);
    const name = str(fn.name);
    if (tool.type !== 'function' || !name) throw invalidParameter(`tools[${i}]`, 'Only function tools with a name are supported.');
    return assignDefined(
      { name, input_schema: isObj(fn.parameters) ? fn.parameters : { type: 'object', properties: {} } },
      { description: str(fn.description), cache_control: tool.cache_control },
    );
  });
}

function convertToolChoice(choice: unknown, parallel: unknown): Json | undefined {
  let out: Json | undefined;
  if (choice === 'auto') out = { type: 'auto' };
  else if (choice === 'required') out = { type: 'any' };
  else if (choice === 'none') out = { type: 'none' };
  else if (isObj(choice)) {
    const name = str(obj(choice.function).name);
    if (!name) throw invalidParameter('tool_choice.function.name', 'tool_choice needs a function name.');
    out = { type: 'tool', name };
  }
  if (parallel === false) out = { ...(out ?? { type: 'auto' }), disable_parallel_tool_use: true };
  return out;
}

function stopSequences(stop: unknown): string[] | undefined {
  if (typeof stop === 'string') return [stop];
  if (Array.isArray(stop)) return stop.filter((s): s is string => typeof s === 'string');
  return undefined;
}

/** The Messages body for an OpenAI chat body (also used by `completions` with one user turn). */
export function anthropicChatBody(body: Json, ctx: CallContext): Json {
  const { system, messages } = convertMessages(body.messages);
  const user = str(body.user);
  return assignDefined(
    { model: ctx.model, messages, max_tokens: body.max_completion_tokens ?? body.max_tokens ?? DEFAULT_MAX_TOKENS },
    {
      system,
      stop_sequences: stopSequences(body.stop),
      temperature: body.temperature ?? undefined,
      top_p: body.top_p ?? undefined,
      top_k: body.top_k,
      tools: convertTools(body.tools),
      tool_choice: body.tools === undefined ? undefined : convertToolChoice(body.tool_choice, body.parallel_tool_calls),
      metadata: user ? { user_id: user } : undefined,
      thinking: body.thinking,
      stream: ctx.stream ? true : undefined,
    },
  );
}

export function messagesCall(payload: Json, ctx: CallContext): UpstreamCall {
  return {
    url: anthropicUrl(ctx, '/messages'),
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  };
}

export const chatRequest = (body: Json, ctx: CallContext): UpstreamCall => messagesCall(anthropicChatBody(body, ctx), ctx);
