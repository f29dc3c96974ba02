// OpenAI embeddings <-> Mistral embeddings (POST /v1/embeddings, OpenAI's answer shape).
// Floats are always requested; a caller asking for encoding_format=base64 (the OpenAI SDKs'
// default) gets them packed as little-endian float32, as OpenAI does.
import { invalidParameter } from '../../../src/domain/errors.ts';
import type { CallContext, EndpointAdapter } from '../contract.ts';
import { recallEncoding, rememberEncoding } from './call-state.ts';
import { openAIError } from './errors.ts';
import { arr, isObj, str, type Json } from '../shared/json.ts';
import { mistralUsage } from './response-chat.ts';
import { jsonCall } from './url.ts';

export function base64Float32(values: unknown[]): string {
  const view = new DataView(new ArrayBuffer(values.length * 4));
  values.forEach((v, i) => view.setFloat32(i * 4, typeof v === 'number' ? v : 0, true));
  const bytes = new Uint8Array(view.buffer);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export const embeddingsEndpoint: EndpointAdapter = {
  request(body: Json, ctx: CallContext) {
    const format = str(body.encoding_format) ?? 'float';
    if (format !== 'float' && format !== 'base64') throw invalidParameter('encoding_format', "encoding_format must be 'float' or 'base64'.");
    rememberEncoding(ctx, format);
    const { user: _user, dimensions, encoding_format: _format, ...rest } = body;
    const payload: Json = { ...rest, model: ctx.model };
    if (dimensions !== undefined && payload.output_dimension === undefined) payload.output_dimension = dimensions;
    return jsonCall(ctx, '/embeddings', payload);
  },
  response(raw: unknown, ctx: CallContext) {
    if (!isObj(raw) || recallEncoding(ctx) !== 'base64') return raw;
    return {
      ...raw,
      data: arr(raw.data).map((d) => (isObj(d) && Array.isArray(d.embedding) ? { ...d, embedding: base64Float32(d.embedding) } : d)),
    };
  },
  error: (status, json) => openAIError(status, json),
  usage: mistralUsage,
};
