// OpenAI embeddings <-> Cohere v2 embed (POST /v2/embed). Cohere needs input_type (v3+ models);
// the default is search_document, the reference gateway's. Floats are always requested; a
// caller asking for encoding_format=base64 (the OpenAI SDKs' default) gets them packed as
// little-endian float32, as OpenAI does.
import { invalidParameter } from '../../../src/domain/errors.ts';
import type { CallContext, EndpointAdapter, TokenCount } from '../contract.ts';
import { recallCall, rememberCall } from './call-state.ts';
import { openAIError } from './errors.ts';
import { arr, assignDefined, num, obj, str, type Json } from '../shared/json.ts';
import { jsonCall } from './url.ts';

export const DEFAULT_INPUT_TYPE = 'search_document';

function texts(input: unknown): string[] {
  if (typeof input === 'string') return [input];
  if (Array.isArray(input) && input.every((s) => typeof s === 'string')) return input as string[];
  throw invalidParameter('input', 'Cohere embeds text: input must be a string or an array of strings.');
}

export function base64Float32(values: unknown[]): string {
  const view = new DataView(new ArrayBuffer(values.length * 4));
  values.forEach((v, i) => view.setFloat32(i * 4, typeof v === 'number' ? v : 0, true));
  const bytes = new Uint8Array(view.buffer);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function embedUsage(json: unknown): TokenCount | null {
  const tokens = num(obj(obj(obj(json).meta).billed_units).input_tokens);
  return tokens === undefined ? null : { prompt: tokens, completion: 0, total: tokens };
}

export const embeddingsEndpoint: EndpointAdapter = {
  request(body: Json, ctx: CallContext) {
    const format = str(body.encoding_format);
    if (format !== undefined && format !== 'float' && format !== 'base64')
      throw invalidParameter('encoding_format', "encoding_format must be 'float' or 'base64'.");
    rememberCall(ctx, { encodingFormat: format ?? 'float' });
    const payload = assignDefined(
      { model: ctx.model, texts: texts(body.input), input_type: str(body.input_type) ?? DEFAULT_INPUT_TYPE, embedding_types: ['float'] },
      { truncate: body.truncate, output_dimension: body.dimensions },
    );
    return jsonCall(ctx, '/v2/embed', payload);
  },
  response(raw: unknown, ctx: CallContext) {
    const json = obj(raw);
    const embeddings = obj(json.embeddings);
    // v2 answers by type ({float: [...]}); an older answer is a bare array of vectors.
    const vectors = Array.isArray(json.embeddings) ? json.embeddings : arr(embeddings.float);
    const base64 = recallCall(ctx).encodingFormat === 'base64';
    const usage = embedUsage(json);
    return {
      object: 'list',
      data: vectors.map((v, index) => ({ object: 'embedding', embedding: base64 ? base64Float32(arr(v)) : v, index })),
      model: ctx.model,
      usage: { prompt_tokens: usage?.prompt ?? 0, total_tokens: usage?.total ?? 0 },
    };
  },
  error: (status, json) => openAIError(status, json),
  usage: embedUsage,
};
