// OpenAI chat request -> Bedrock Converse body
// (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html):
// system blocks, alternating user/assistant messages of content blocks (text, image, toolUse,
// toolResult), inferenceConfig, toolConfig.
import { invalidParameter } from '../../../src/domain/errors.ts';
import { asArray, asRecord, asString } from '../shared/openai-chat.ts';

type Block = Record<string, unknown>;
interface Message {
  role: 'user' | 'assistant';
  content: Block[];
}

const IMAGE_FORMATS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/jpg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp' };

function imageBlock(part: Record<string, unknown>, param: string): Block {
  const url = asString(asRecord(part.image_url).url) ?? asString(part.image_url) ?? '';
  const data = /^data:([^;,]+)(?:;[^;,]*)*;base64,(.*)$/s.exec(url);
  if (data) {
    const format = IMAGE_FORMATS[(data[1] ?? '').toLowerCase()];
    if (!format) throw invalidParameter(param, `Bedrock takes png, jpeg, gif or webp images, not ${data[1]}.`);
    return { image: { format, source: { bytes: data[2] } } };
  }
  if (url.startsWith('s3://')) {
    const ext = (/\.([a-z]+)$/i.exec(url)?.[1] ?? '').toLowerCase();
    return { image: { format: ext === 'jpg' ? 'jpeg' : ext || 'png', source: { s3Location: { uri: url } } } };
  }
  // Converse takes bytes or S3 locations only; it cannot fetch web URLs.
  throw invalidParameter(param, 'Bedrock images must be base64 data URLs or s3:// locations.');
}

function blocks(content: unknown, param: string): Block[] {
  if (typeof content === 'string') return content ? [{ text: content }] : [];
  if (content === null || content === undefined) return [];
  if (!Array.isArray(content)) throw invalidParameter(param, 'content must be a string or an array of parts.');
  const out: Block[] = [];
  content.forEach((raw, i) => {
    const part = asRecord(raw);
    if (part.type === 'text') {
      // Converse rejects blank text blocks.
      if (asString(part.text)) out.push({ text: part.text });
    } else if (part.type === 'image_url') {
      out.push(imageBlock(part, `${param}[${i}].image_url`));
    } else {
      throw invalidParameter(`${param}[${i}].type`, `Content part type '${String(part.type)}' is not supported by Bedrock.`);
    }
  });
  return out;
}

function toolInput(args: unknown, param: string): unknown {
  if (typeof args !== 'string' || args.trim() === '') return {};
  try {
    return JSON.parse(args);
  } catch {
    throw invalidParameter(param, 'function.arguments must be a JSON string.');
  }
}

function toolResultContent(content: unknown): Block[] {
  const text = typeof content === 'string' ? content : asArray(content).map((p) => asString(asRecord(p).text) ?? '').join('');
  return [{ text: text || ' ' }];
}

function push(messages: Message[], role: Message['role'], content: Block[]): void {
  if (content.length === 0) return;
  const last = messages[messages.length - 1];
  // Converse needs alternating roles: merge consecutive turns (e.g. parallel tool results).
  if (last && last.role === role) last.content.push(...content);
  else messages.push({ role, content });
}

function toolChoice(choice: unknown): Record<string, unknown> | undefined {
  if (choice === 'auto') return { auto: {} };
  if (choice === 'required') return { any: {} };
  const name = asString(asRecord(asRecord(choice).function).name);
  // 'none' has no Converse form: the tools stay declared (history may reference them), no choice forced.
  return name ? { tool: { name } } : undefined;
}

export function converseBody(body: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(body.messages)) throw invalidParameter('messages', 'messages is required (an array).');
  const system: Block[] = [];
  const messages: Message[] = [];
  body.messages.forEach((raw, i) => {
    const m = asRecord(raw);
    const param = `messages[${i}]`;
    switch (m.role) {
      case 'system':
      case 'developer':
        system.push(...blocks(m.content, `${param}.content`));
        break;
      case 'user':
        push(messages, 'user', blocks(m.content, `${param}.content`));
        break;
      case 'assistant': {
        const content = blocks(m.content, `${param}.content`);
        asArray(m.tool_calls).forEach((rawCall, j) => {
          const call = asRecord(rawCall);
          const fn = asRecord(call.function);
          content.push({ toolUse: { toolUseId: asString(call.id) ?? '', name: asString(fn.name) ?? '', input: toolInput(fn.arguments, `${param}.tool_calls[${j}].function.arguments`) } });
        });
        push(messages, 'assistant', content);
        break;
      }
      case 'tool':
        push(messages, 'user', [{ toolResult: { toolUseId: asString(m.tool_call_id) ?? '', content: toolResultContent(m.content) } }]);
        break;
      default:
        throw invalidParameter(`${param}.role`, `Unknown message role '${String(m.role)}'.`);
    }
  });

  const out: Record<string, unknown> = { messages };
  if (system.length > 0) out.system = system;
  const inference: Record<string, unknown> = {};
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (typeof maxTokens === 'number') inference.maxTokens = maxTokens;
  if (typeof body.temperature === 'number') inference.temperature = body.temperature;
  if (typeof body.top_p === 'number') inference.topP = body.top_p;
  if (typeof body.stop === 'string') inference.stopSequences = [body.stop];
  else if (Array.isArray(body.stop)) inference.stopSequences = body.stop;
  if (Object.keys(inference).length > 0) out.inferenceConfig = inference;
  // top_k is model-specific on Bedrock: it travels in additionalModelRequestFields.
  if (typeof body.top_k === 'number') out.additionalModelRequestFields = { top_k: body.top_k };

  const tools = asArray(body.tools)
    .map((t) => asRecord(t))
    .filter((t) => t.type === 'function')
    .map((t) => {
      const fn = asRecord(t.function);
      const spec: Record<string, unknown> = { name: fn.name, inputSchema: { json: fn.parameters ?? { type: 'object', properties: {} } } };
      if (fn.description !== undefined) spec.description = fn.description;
      return { toolSpec: spec };
    });
  if (tools.length > 0) {
    const config: Record<string, unknown> = { tools };
    const choice = toolChoice(body.tool_choice);
    if (choice) config.toolChoice = choice;
    out.toolConfig = config;
  }
  return out;
}
