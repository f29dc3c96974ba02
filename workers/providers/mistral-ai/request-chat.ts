// OpenAI chat.completions body -> Mistral chat body (POST /v1/chat/completions). Mistral speaks
// OpenAI's shape with differences: max_tokens (no max_completion_tokens), random_seed (no
// seed), tool_choice `any` for `required`, 9-character tool call ids, no OpenAI-only fields
// (its validation rejects unknown fields), usage always in the stream. Mistral's own fields
// (safe_prompt, prompt_mode, prediction, ...) pass through.
import { invalidParameter } from '../../../src/domain/errors.ts';
import type { CallContext, UpstreamCall } from '../contract.ts';
import { isObj, obj, str, type Json } from '../shared/json.ts';
import { mistralToolCallId } from './tool-call-id.ts';
import { jsonCall } from './url.ts';

/** OpenAI fields Mistral does not take. */
const OPENAI_ONLY = [
  'user',
  'logit_bias',
  'logprobs',
  'top_logprobs',
  'store',
  'metadata',
  'service_tier',
  'stream_options',
  'modalities',
  'audio',
  'reasoning_effort',
  'functions',
  'function_call',
  'web_search_options',
  'max_completion_tokens',
  'seed',
];

async function convertMessage(raw: unknown): Promise<unknown> {
  if (!isObj(raw)) return raw;
  const m: Json = { ...raw };
  if (Array.isArray(m.tool_calls))
    m.tool_calls = await Promise.all(
      m.tool_calls.map(async (c) => (isObj(c) && typeof c.id === 'string' ? { ...c, id: await mistralToolCallId(c.id) } : c)),
    );
  if (typeof m.tool_call_id === 'string') m.tool_call_id = await mistralToolCallId(m.tool_call_id);
  return m;
}

export async function chatRequest(body: Json, ctx: CallContext): Promise<UpstreamCall> {
  if (!Array.isArray(body.messages)) throw invalidParameter('messages', 'messages must be an array.');
  const payload: Json = { ...body, model: ctx.model, messages: await Promise.all(body.messages.map(convertMessage)) };
  for (const key of OPENAI_ONLY) delete payload[key];
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (maxTokens !== undefined && maxTokens !== null) payload.max_tokens = maxTokens;
  if (body.seed !== undefined && body.seed !== null && body.random_seed === undefined) payload.random_seed = body.seed;
  if (body.tool_choice === 'required') payload.tool_choice = 'any';
  if (isObj(body.tool_choice) && !str(obj(body.tool_choice.function).name))
    throw invalidParameter('tool_choice.function.name', 'tool_choice needs a function name.');
  // The pipeline decided whether this call streams; the body follows it.
  if (ctx.stream) payload.stream = true;
  else delete payload.stream;
  return jsonCall(ctx, '/chat/completions', payload);
}
