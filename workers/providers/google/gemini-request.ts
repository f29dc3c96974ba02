// OpenAI chat request -> Gemini generateContent body (Gemini API and Vertex AI share it):
// contents with roles user/model, systemInstruction, tools.functionDeclarations, toolConfig,
// generationConfig (https://ai.google.dev/api/generate-content).
import { invalidParameter } from '../../../src/domain/errors.ts';
import { asArray, asRecord, asString } from '../shared/openai-chat.ts';

type Part = Record<string, unknown>;
interface Content {
  role: 'user' | 'model';
  parts: Part[];
}

/** `data:<mime>;base64,<data>` -> its parts, or null for any other URL. */
export function parseDataUrl(url: string): { mimeType: string; data: string } | null {
  const m = /^data:([^;,]+)?(?:;[^;,]*)*;base64,(.*)$/s.exec(url);
  return m ? { mimeType: m[1] ?? 'application/octet-stream', data: m[2] ?? '' } : null;
}

const MIME_BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
};

function imagePart(part: Record<string, unknown>, param: string): Part {
  const url = asString(asRecord(part.image_url).url) ?? asString(part.image_url);
  if (!url) throw invalidParameter(param, 'image_url.url is required.');
  const inline = parseDataUrl(url);
  if (inline) return { inlineData: inline };
  // Gemini fetches gs:// and https:// files itself (fileData); the MIME type is required.
  const ext = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase() ?? '';
  return { fileData: { mimeType: MIME_BY_EXTENSION[ext] ?? 'image/jpeg', fileUri: url } };
}

function contentParts(content: unknown, param: string): Part[] {
  if (typeof content === 'string') return content ? [{ text: content }] : [];
  if (content === null || content === undefined) return [];
  if (!Array.isArray(content)) throw invalidParameter(param, 'content must be a string or an array of parts.');
  return content.map((raw, i) => {
    const part = asRecord(raw);
    if (part.type === 'text') return { text: asString(part.text) ?? '' };
    if (part.type === 'image_url') return imagePart(part, `${param}[${i}].image_url`);
    throw invalidParameter(`${param}[${i}].type`, `Content part type '${String(part.type)}' is not supported by Gemini.`);
  });
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return asArray(content)
    .map((p) => asString(asRecord(p).text) ?? '')
    .join('');
}

/** Tool results must be objects for Gemini: JSON objects pass, anything else is wrapped. */
function toolResponse(content: unknown): Record<string, unknown> {
  const text = textOf(content);
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // not JSON: wrap the text
  }
  return { content: text };
}

function parseArguments(args: unknown, param: string): Record<string, unknown> {
  if (typeof args !== 'string' || args.trim() === '') return {};
  try {
    return asRecord(JSON.parse(args));
  } catch {
    throw invalidParameter(param, 'function.arguments must be a JSON object string.');
  }
}

const UNSUPPORTED_SCHEMA_KEYS = new Set(['$schema', '$id', 'additionalProperties', 'strict']);

/** Gemini's `parameters` take an OpenAPI subset of JSON Schema: drop the keys it rejects. */
export function cleanSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(cleanSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (UNSUPPORTED_SCHEMA_KEYS.has(key)) continue;
    out[key] = key === 'properties' ? Object.fromEntries(Object.entries(asRecord(value)).map(([k, v]) => [k, cleanSchema(v)])) : cleanSchema(value);
  }
  return out;
}

function push(contents: Content[], role: Content['role'], parts: Part[]): void {
  if (parts.length === 0) return;
  const last = contents[contents.length - 1];
  // Consecutive turns of one role become one (parallel tool results must share a turn).
  if (last && last.role === role) last.parts.push(...parts);
  else contents.push({ role, parts });
}

/**
 * Gemini's thoughtSignature on a function call must come back with it on the next turn; OpenAI
 * callers only echo the tool call id, so the signature travels inside it after this marker.
 */
export const SIGNATURE_MARKER = '__thought__';
const SKIP_SIGNATURE = 'skip_thought_signature_validator';

export const toolCallId = (id: string, signature: unknown): string => (typeof signature === 'string' && signature ? `${id}${SIGNATURE_MARKER}${signature}` : id);

function thoughtSignatureOf(id: string | undefined): string | undefined {
  const at = id?.indexOf(SIGNATURE_MARKER) ?? -1;
  return id && at >= 0 ? id.slice(at + SIGNATURE_MARKER.length) || undefined : undefined;
}

export function geminiContents(messages: unknown, options: { gemini3?: boolean } = {}): { contents: Content[]; systemInstruction?: { parts: Part[] } } {
  if (!Array.isArray(messages)) throw invalidParameter('messages', 'messages is required (an array).');
  const contents: Content[] = [];
  const system: Part[] = [];
  const toolNames = new Map<string, string>();
  messages.forEach((raw, i) => {
    const m = asRecord(raw);
    const param = `messages[${i}]`;
    switch (m.role) {
      case 'system':
      case 'developer':
        system.push(...contentParts(m.content, `${param}.content`));
        break;
      case 'user':
        push(contents, 'user', contentParts(m.content, `${param}.content`));
        break;
      case 'assistant': {
        const parts = contentParts(m.content, `${param}.content`);
        let signed = false;
        asArray(m.tool_calls).forEach((rawCall, j) => {
          const call = asRecord(rawCall);
          const fn = asRecord(call.function);
          const name = asString(fn.name) ?? '';
          if (typeof call.id === 'string') toolNames.set(call.id, name);
          const part: Part = { functionCall: { name, args: parseArguments(fn.arguments, `${param}.tool_calls[${j}].function.arguments`) } };
          const signature = thoughtSignatureOf(asString(call.id));
          if (signature) {
            part.thoughtSignature = signature;
            signed = true;
          } else if (j === 0 && !signed && options.gemini3) {
            // Gemini 3 rejects a replayed call without its signature; history from elsewhere has
            // none, so the documented sentinel stands in (ai.google.dev/gemini-api/docs/thought-signatures).
            part.thoughtSignature = SKIP_SIGNATURE;
          }
          parts.push(part);
        });
        if (signed) for (const p of parts) if (p.thoughtSignature === SKIP_SIGNATURE) delete p.thoughtSignature;
        push(contents, 'model', parts);
        break;
      }
      case 'tool':
      case 'function': {
        const name = asString(m.name) ?? toolNames.get(asString(m.tool_call_id) ?? '') ?? '';
        push(contents, 'user', [{ functionResponse: { name, response: toolResponse(m.content) } }]);
        break;
      }
      default:
        throw invalidParameter(`${param}.role`, `Unknown message role '${String(m.role)}'.`);
    }
  });
  return system.length > 0 ? { contents, systemInstruction: { parts: system } } : { contents };
}

function toolConfig(choice: unknown): Record<string, unknown> | undefined {
  if (choice === 'none') return { functionCallingConfig: { mode: 'NONE' } };
  if (choice === 'auto') return { functionCallingConfig: { mode: 'AUTO' } };
  if (choice === 'required') return { functionCallingConfig: { mode: 'ANY' } };
  const name = asString(asRecord(asRecord(choice).function).name);
  return name ? { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [name] } } : undefined;
}

/** OpenAI reasoning_effort -> thinkingBudget (Gemini 2.5), as Google's OpenAI compatibility layer maps it. */
const THINKING_BUDGET: Record<string, number> = { none: 0, minimal: 1024, low: 1024, medium: 8192, high: 24576 };

function thinkingConfig(effort: unknown, gemini3: boolean): Record<string, unknown> | undefined {
  if (typeof effort !== 'string' || !(effort in THINKING_BUDGET)) return undefined;
  // Gemini 3 takes a level instead of a budget.
  if (gemini3) return { thinkingLevel: effort === 'none' ? 'minimal' : effort };
  return { thinkingBudget: THINKING_BUDGET[effort] };
}

function generationConfig(body: Record<string, unknown>, gemini3: boolean): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  const thinking = thinkingConfig(body.reasoning_effort, gemini3);
  if (thinking) config.thinkingConfig = thinking;
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (typeof maxTokens === 'number') config.maxOutputTokens = maxTokens;
  if (typeof body.temperature === 'number') config.temperature = body.temperature;
  if (typeof body.top_p === 'number') config.topP = body.top_p;
  if (typeof body.top_k === 'number') config.topK = body.top_k;
  if (typeof body.n === 'number') config.candidateCount = body.n;
  if (typeof body.seed === 'number') config.seed = body.seed;
  if (typeof body.presence_penalty === 'number') config.presencePenalty = body.presence_penalty;
  if (typeof body.frequency_penalty === 'number') config.frequencyPenalty = body.frequency_penalty;
  if (typeof body.stop === 'string') config.stopSequences = [body.stop];
  else if (Array.isArray(body.stop)) config.stopSequences = body.stop;
  const format = asRecord(body.response_format);
  if (format.type === 'json_object') config.responseMimeType = 'application/json';
  if (format.type === 'json_schema') {
    config.responseMimeType = 'application/json';
    const schema = asRecord(format.json_schema).schema;
    if (schema) config.responseSchema = cleanSchema(schema);
  }
  return config;
}

/** The generateContent body for an OpenAI chat request. */
export function geminiChatBody(body: Record<string, unknown>, model: string): Record<string, unknown> {
  const gemini3 = /(^|\/)gemini-3/.test(model);
  const out: Record<string, unknown> = { ...geminiContents(body.messages, { gemini3 }) };
  const declarations = asArray(body.tools)
    .map((t) => asRecord(t))
    .filter((t) => t.type === 'function')
    .map((t) => {
      const fn = asRecord(t.function);
      const decl: Record<string, unknown> = { name: fn.name };
      if (fn.description !== undefined) decl.description = fn.description;
      if (fn.parameters !== undefined) decl.parameters = cleanSchema(fn.parameters);
      return decl;
    });
  if (declarations.length > 0) out.tools = [{ functionDeclarations: declarations }];
  const tc = toolConfig(body.tool_choice);
  if (tc && declarations.length > 0) out.toolConfig = tc;
  const config = generationConfig(body, gemini3);
  if (Object.keys(config).length > 0) out.generationConfig = config;
  return out;
}
