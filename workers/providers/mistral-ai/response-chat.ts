// Mistral chat JSON and stream chunks -> OpenAI's. Mostly the same shape: finish reasons
// `model_length` and `error` have no OpenAI name, and reasoning models answer content as a list
// of chunks ({type:'text'} / {type:'thinking'}) where OpenAI has a string.
import type { TokenCount } from '../contract.ts';
import { arr, isObj, num, obj, str, type Json } from '../shared/json.ts';

export function finishReason(reason: unknown): unknown {
  if (reason === 'model_length') return 'length';
  if (reason === 'error') return 'stop';
  return reason;
}

const textOf = (content: unknown): unknown =>
  Array.isArray(content) ? arr(content).map((c) => (obj(c).type === 'text' ? (str(obj(c).text) ?? '') : '')).join('') : content;

/** One choice of an answer (`message`) or a chunk (`delta`), in OpenAI's terms. */
export function normalizeChoice(raw: unknown, field: 'message' | 'delta'): unknown {
  if (!isObj(raw)) return raw;
  const choice: Json = { ...raw, finish_reason: finishReason(raw.finish_reason ?? null) };
  if (isObj(raw[field]) && 'content' in raw[field]) choice[field] = { ...raw[field], content: textOf(raw[field].content) };
  return choice;
}

export function mistralUsage(json: unknown): TokenCount | null {
  const u = obj(obj(json).usage);
  const prompt = num(u.prompt_tokens);
  const completion = num(u.completion_tokens) ?? 0;
  if (prompt === undefined) return null;
  return { prompt, completion, total: num(u.total_tokens) ?? prompt + completion };
}

export function chatResponse(raw: unknown): unknown {
  if (!isObj(raw)) return raw;
  return { ...raw, object: 'chat.completion', choices: arr(raw.choices).map((c) => normalizeChoice(c, 'message')) };
}
