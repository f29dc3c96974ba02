// Google Vertex AI (platform B). Gemini models reuse the Gemini API transforms (../google);
// Claude models go through Anthropic's rawPredict / streamRawPredict; text-embedding models
// through :predict. Auth: see auth.ts.
import { invalidParameter } from '../../../src/domain/errors.ts';
import type { CallContext, EndpointAdapter, ProviderAdapter, UpstreamCall } from '../contract.ts';
import { recalledFormat, rememberFormat } from '../google/gemini-embeddings.ts';
import { geminiChatBody } from '../google/gemini-request.ts';
import { geminiChatResponse, geminiUsage, googleError } from '../google/gemini-response.ts';
import { GeminiStreamTranslator } from '../google/gemini-stream.ts';
import { asRecord, asString, errorBody, errorTypeFor } from '../shared/openai-chat.ts';
import { vertexAuthHeaders } from './auth.ts';
import { AnthropicPassThrough } from '../anthropic/messages.ts';
import { anthropicChatBody } from '../anthropic/request-chat.ts';
import { chatResponse as claudeChatResponse } from '../anthropic/response-chat.ts';
import { AnthropicStreamTranslator } from '../anthropic/stream-chat.ts';
import { anthropicUsage } from '../anthropic/usage.ts';

/** Claude on Vertex speaks Anthropic's Messages API with this version, the model in the URL. */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

/** An OpenAI chat body as Claude's Messages body on Vertex (the Anthropic adapter's mapping). */
function claudeChatBody(body: Record<string, unknown>, ctx: CallContext): Record<string, unknown> {
  const { model: _model, ...rest } = anthropicChatBody(body, ctx);
  return { anthropic_version: VERTEX_ANTHROPIC_VERSION, ...rest };
}
import { vertexEmbedBody, vertexEmbedResponse, vertexEmbedUsage } from './embeddings.ts';
import { vertexBaseUrl, vertexModel, vertexModelUrl } from './routing.ts';

const jsonCall = (url: string, body: unknown): UpstreamCall => ({
  url,
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** Vertex answers Google-shaped errors, except Claude's own, which keep Anthropic's shape. */
export function vertexError(status: number, json: unknown): Record<string, unknown> {
  const err = asRecord(asRecord(Array.isArray(json) ? json[0] : json).error);
  if (asString(err.status) === undefined && asString(err.type) !== undefined) {
    return errorBody(asString(err.message) ?? `Upstream error (HTTP ${status})`, errorTypeFor(status), asString(err.type) ?? null);
  }
  return googleError(status, json);
}

const isClaude = (ctx: CallContext): boolean => vertexModel(ctx.model).publisher === 'anthropic';

const chat: EndpointAdapter = {
  request(body, ctx) {
    const { publisher, model } = vertexModel(ctx.model);
    if (publisher === 'anthropic') return jsonCall(vertexModelUrl(ctx, publisher, model, ctx.stream ? 'streamRawPredict' : 'rawPredict'), claudeChatBody(body, ctx));
    if (publisher !== 'google') throw invalidParameter('model', `Vertex AI chat supports Gemini and Claude models, not '${ctx.model}'.`);
    return jsonCall(vertexModelUrl(ctx, publisher, model, ctx.stream ? 'streamGenerateContent?alt=sse' : 'generateContent'), geminiChatBody(body, model));
  },
  response: (json, ctx) => (isClaude(ctx) ? claudeChatResponse(json, ctx) : geminiChatResponse(json, ctx.model, ctx.now())),
  error: (status, json) => vertexError(status, json),
  stream: (ctx) => (isClaude(ctx) ? new AnthropicStreamTranslator(ctx) : new GeminiStreamTranslator(ctx.model, ctx.now())),
  usage: (json) => geminiUsage(json) ?? anthropicUsage(json),
};

/** Anthropic's Messages API for Claude models: the body is relayed, the model moves to the URL. */
const messages: EndpointAdapter = {
  request(body, ctx) {
    const { publisher, model } = vertexModel(ctx.model);
    if (publisher !== 'anthropic') throw invalidParameter('model', `The messages endpoint on Vertex AI serves Claude models, not '${ctx.model}'.`);
    const { model: _model, stream: _stream, ...rest } = body;
    const upstream: Record<string, unknown> = { anthropic_version: VERTEX_ANTHROPIC_VERSION, ...rest };
    if (ctx.stream) upstream.stream = true;
    return jsonCall(vertexModelUrl(ctx, publisher, model, ctx.stream ? 'streamRawPredict' : 'rawPredict'), upstream);
  },
  error: (status, json) => vertexError(status, json),
  stream: () => new AnthropicPassThrough(),
  usage: (json) => anthropicUsage(json),
};

const embeddings: EndpointAdapter = {
  request(body, ctx) {
    const { publisher, model } = vertexModel(ctx.model);
    if (publisher !== 'google') throw invalidParameter('model', `Vertex AI embeddings support Google text-embedding models, not '${ctx.model}'.`);
    rememberFormat(ctx, body.encoding_format);
    return jsonCall(vertexModelUrl(ctx, publisher, model, 'predict'), vertexEmbedBody(body));
  },
  response: (json, ctx) => vertexEmbedResponse(json, ctx.model, recalledFormat(ctx)),
  error: (status, json) => vertexError(status, json),
  usage: vertexEmbedUsage,
};

export const vertexAiAdapter: ProviderAdapter = {
  name: 'vertex-ai',
  baseUrl: vertexBaseUrl,
  authHeaders: vertexAuthHeaders,
  forwardedHeaders: [],
  endpoints: { 'chat.completions': chat, messages, embeddings },
};
