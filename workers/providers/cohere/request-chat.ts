// OpenAI chat.completions body -> Cohere v2 chat body (POST /v2/chat).
import { invalidParameter } from '../../../src/domain/errors.ts';
import type { CallContext, UpstreamCall } from '../contract.ts';
import { arr, assignDefined, isObj, obj, str, type Json } from '../shared/json.ts';
import { jsonCall } from './url.ts';

function contentParts(content: unknown, param: string): string | Json[] {
  if (typeof content === 'string') return content;
  return arr(content).map((raw, i) => {
    const p = obj(raw);
    if (p.type === 'text') return { type: 'text', text: str(p.text) ?? '' };
    if (p.type === 'image_url') {
      const url = str(obj(p.image_url).url) ?? str(p.image_url);
      if (!url) throw invalidParameter(`${param}[${i}].image_url.url`, 'Missing image URL.');
      return { type: 'image_url', image_url: assignDefined({ url }, { detail: obj(p.image_url).detail }) };
    }
    throw invalidParameter(`${param}[${i}].type`, `Content part type '${String(p.type)}' is not supported by Cohere.`);
  });
}

const textOnly = (content: unknown): string =>
  typeof content === 'string' ? content : arr(content).map((p) => str(obj(p).text) ?? '').join('');

function convertMessage(raw: unknown, i: number): Json {
  const m = obj(raw);
  const param = `messages[${i}]`;
  switch (m.role) {
    case 'system':
    case 'developer':
      return { role: 'system', content: textOnly(m.content) };
    case 'user':
      return { role: 'user', content: contentParts(m.content, `${param}.content`) };
    case 'assistant': {
      const calls = arr(m.tool_calls).map((c) => {
        const call = obj(c);
        const fn = obj(call.function);
        const args = isObj(fn.arguments) ? JSON.stringify(fn.arguments) : (str(fn.arguments) ?? '{}');
        return { id: str(call.id) ?? '', type: 'function', function: { name: str(fn.name) ?? '', arguments: args } };
      });
      const text = m.content === null || m.content === undefined ? '' : textOnly(m.content);
      const out: Json = { role: 'assistant' };
      // Cohere wants the model's reasoning before tool calls as tool_plan, not content.
      if (calls.length > 0) {
        out.tool_calls = calls;
        if (text) out.tool_plan = text;
      } else out.content = text;
      return out;
    }
    case 'tool': {
      const id = str(m.tool_call_id);
      if (!id) throw invalidParameter(`${param}.tool_call_id`, 'Tool messages need tool_call_id.');
      return { role: 'tool', tool_call_id: id, content: textOnly(m.content) };
    }
    default:
      throw invalidParameter(`${param}.role`, `Role '${String(m.role)}' is not supported by Cohere.`);
  }
}

function convertTools(tools: unknown, choice: unknown): { tools?: Json[]; tool_choice?: string } {
  if (tools === undefined) return {};
  let list = arr(tools).map((t, i) => {
    const fn = obj(obj(t).function);
    if (obj(t).type !== 'function' || !str(fn.name)) throw invalidParameter(`tools[${i}]`, 'Only function tools with a name are supported.');
    return { type: 'function', function: assignDefined({ name: fn.name }, { description: fn.description, parameters: fn.parameters }) };
  });
  // Cohere's tool_choice has no "this function": keep only that tool and require a call.
  if (isObj(choice)) {
    const name = str(obj(choice.function).name);
    list = list.filter((t) => t.function.name === name);
    if (list.length === 0) throw invalidParameter('tool_choice.function.name', `No tool named '${String(name)}'.`);
    return { tools: list, tool_choice: 'REQUIRED' };
  }
  const mapped = choice === 'required' ? 'REQUIRED' : choice === 'none' ? 'NONE' : undefined;
  return assignDefined({ tools: list }, { tool_choice: mapped }) as { tools: Json[]; tool_choice?: string };
}

function responseFormat(format: unknown): Json | undefined {
  const f = obj(format);
  if (f.type === 'json_object') return { type: 'json_object' };
  if (f.type === 'json_schema') return assignDefined({ type: 'json_object' }, { json_schema: obj(f.json_schema).schema });
  return undefined;
}

/** Cohere fields an OpenAI-shaped caller may add; sent as given. */
const COHERE_EXTRAS = ['documents', 'citation_options', 'safety_mode', 'k', 'thinking', 'strict_tools'];

export function chatRequest(body: Json, ctx: CallContext): UpstreamCall {
  if (!Array.isArray(body.messages)) throw invalidParameter('messages', 'messages must be an array.');
  const stop = typeof body.stop === 'string' ? [body.stop] : Array.isArray(body.stop) ? body.stop : undefined;
  const payload: Json = {
    model: ctx.model,
    messages: body.messages.map(convertMessage),
    ...convertTools(body.tools, body.tool_choice),
    stream: ctx.stream,
  };
  assignDefined(payload, {
    max_tokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
    stop_sequences: stop,
    temperature: body.temperature ?? undefined,
    p: body.top_p ?? undefined,
    k: body.top_k,
    seed: body.seed ?? undefined,
    frequency_penalty: body.frequency_penalty ?? undefined,
    presence_penalty: body.presence_penalty ?? undefined,
    response_format: responseFormat(body.response_format),
    logprobs: body.logprobs === true ? true : undefined,
  });
  for (const key of COHERE_EXTRAS) if (body[key] !== undefined) payload[key] = body[key];
  return jsonCall(ctx, '/v2/chat', payload);
}
