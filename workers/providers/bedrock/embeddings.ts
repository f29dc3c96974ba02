// OpenAI embeddings <-> Bedrock InvokeModel for the embedding families it hosts:
// Amazon Titan text embeddings (one `inputText` per call, `{embedding, inputTextTokenCount}`)
// and Cohere embed (`{texts, input_type}` -> `{embeddings}`)
// (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-titan-embed-text.html,
//  https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-embed.html).
import { invalidParameter } from '../../../src/domain/errors.ts';
import type { TokenCount } from '../contract.ts';
import { asArray, asRecord } from '../shared/openai-chat.ts';

export type EmbeddingFamily = 'titan' | 'cohere';

export function embeddingFamily(model: string): EmbeddingFamily {
  if (model.includes('titan-embed')) return 'titan';
  if (model.includes('cohere.embed')) return 'cohere';
  throw invalidParameter('model', `Bedrock embeddings support Amazon Titan and Cohere embed models, not '${model}'.`);
}

function inputs(input: unknown): string[] {
  if (typeof input === 'string') return [input];
  if (Array.isArray(input) && input.length > 0 && input.every((i) => typeof i === 'string')) return input as string[];
  throw invalidParameter('input', 'input must be a string or a non-empty array of strings.');
}

export function embeddingBody(body: Record<string, unknown>, model: string): Record<string, unknown> {
  const texts = inputs(body.input);
  if (embeddingFamily(model) === 'titan') {
    if (texts.length !== 1) throw invalidParameter('input', 'Titan embedding models take one input per request.');
    const out: Record<string, unknown> = { inputText: texts[0] };
    if (typeof body.dimensions === 'number') out.dimensions = body.dimensions;
    if (typeof body.normalize === 'boolean') out.normalize = body.normalize;
    return out;
  }
  const out: Record<string, unknown> = { texts, input_type: typeof body.input_type === 'string' ? body.input_type : 'search_document' };
  if (typeof body.truncate === 'string') out.truncate = body.truncate;
  return out;
}

const numbers = (v: unknown): number[] => asArray(v).filter((n): n is number => typeof n === 'number');

/** Float vectors of either family (Cohere answers a list, or `{float: [...]}` when types were asked). */
export function embeddingVectors(json: unknown): number[][] {
  const res = asRecord(json);
  if (Array.isArray(res.embedding)) return [numbers(res.embedding)];
  const list = Array.isArray(res.embeddings) ? res.embeddings : asRecord(res.embeddings).float;
  return asArray(list).map(numbers);
}

export function embeddingUsage(json: unknown): TokenCount | null {
  const count = asRecord(json).inputTextTokenCount;
  return typeof count === 'number' ? { prompt: count, completion: 0, total: count } : null;
}

export function embeddingResponse(json: unknown, model: string, format: unknown): Record<string, unknown> {
  const tokens = embeddingUsage(json)?.prompt ?? 0;
  return {
    object: 'list',
    data: embeddingVectors(json).map((v, index) => ({ object: 'embedding', embedding: encode(v, format), index })),
    model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

/** OpenAI's `encoding_format: base64`: little-endian float32 bytes, base64-encoded. */
function encode(values: number[], format: unknown): number[] | string {
  if (format !== 'base64') return values;
  const bytes = new Uint8Array(new Float32Array(values).buffer);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** response() gets no request body: the caller's encoding_format is kept per call context. */
const formats = new WeakMap<object, unknown>();
export const rememberFormat = (ctx: object, format: unknown): void => {
  if (format !== undefined) formats.set(ctx, format);
};
export const recalledFormat = (ctx: object): unknown => formats.get(ctx);
