// OpenAI embeddings <-> Gemini embedContent (one input) / batchEmbedContents (a list)
// (https://ai.google.dev/api/embeddings).
import { invalidParameter } from '../../../src/domain/errors.ts';
import { asArray, asRecord } from '../shared/openai-chat.ts';

/** The caller's `input` as strings; token-id arrays have no Gemini equivalent. */
export function embeddingInputs(input: unknown): string[] {
  if (typeof input === 'string') return [input];
  if (Array.isArray(input) && input.length > 0 && input.every((i) => typeof i === 'string')) return input as string[];
  throw invalidParameter('input', 'input must be a string or a non-empty array of strings.');
}

/** OpenAI's `encoding_format: base64`: little-endian float32 bytes, base64-encoded. */
export function encodeEmbedding(values: number[], format: unknown): number[] | string {
  if (format !== 'base64') return values;
  const bytes = new Uint8Array(new Float32Array(values).buffer);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

export function openAIEmbeddingList(vectors: number[][], model: string, format: unknown, promptTokens: number): Record<string, unknown> {
  return {
    object: 'list',
    data: vectors.map((v, index) => ({ object: 'embedding', embedding: encodeEmbedding(v, format), index })),
    model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}

export const geminiModelPath = (model: string): string => `models/${model.replace(/^models\//, '')}`;

/** The method (`embedContent` or `batchEmbedContents`) and its body. */
export function geminiEmbedRequest(body: Record<string, unknown>, model: string): { method: string; body: Record<string, unknown> } {
  const inputs = embeddingInputs(body.input);
  const options: Record<string, unknown> = {};
  if (typeof body.dimensions === 'number') options.outputDimensionality = body.dimensions;
  if (typeof body.task_type === 'string') options.taskType = body.task_type;
  if (typeof body.input === 'string') return { method: 'embedContent', body: { content: { parts: [{ text: inputs[0] }] }, ...options } };
  return {
    method: 'batchEmbedContents',
    body: { requests: inputs.map((text) => ({ model: geminiModelPath(model), content: { parts: [{ text }] }, ...options })) },
  };
}

export function geminiEmbedResponse(json: unknown, model: string, format: unknown): Record<string, unknown> {
  const res = asRecord(json);
  const list = res.embeddings !== undefined ? asArray(res.embeddings) : [res.embedding];
  const vectors = list.map((e) => asArray(asRecord(e).values).filter((v): v is number => typeof v === 'number'));
  // The Gemini API reports no token counts for embeddings.
  return openAIEmbeddingList(vectors, model, format, 0);
}

/**
 * response() sees only the provider's JSON and the CallContext, so the caller's
 * `encoding_format` is remembered per call context between request() and response().
 */
const formats = new WeakMap<object, unknown>();
export const rememberFormat = (ctx: object, format: unknown): void => {
  if (format !== undefined) formats.set(ctx, format);
};
export const recalledFormat = (ctx: object): unknown => formats.get(ctx);
