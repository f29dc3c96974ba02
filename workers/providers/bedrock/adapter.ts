// AWS Bedrock runtime (platform C): chat through Converse / ConverseStream, embeddings and
// Anthropic `messages` through InvokeModel / InvokeModelWithResponseStream. Every call is
// SigV4-signed in request() because the signature covers the body; authHeaders() adds nothing.
import type { EndpointAdapter, ProviderAdapter } from '../contract.ts';
import { AnthropicEventStreamTranslator, anthropicUsage, invokeAnthropicBody } from './anthropic-messages.ts';
import { converseBody } from './converse-request.ts';
import { bedrockError, converseChatResponse, converseUsage } from './converse-response.ts';
import { ConverseStreamTranslator } from './converse-stream.ts';
import { embeddingBody, embeddingResponse, embeddingUsage, recalledFormat, rememberFormat } from './embeddings.ts';
import { asRecord } from '../shared/openai-chat.ts';
import { bedrockBaseUrl, modelUrl, signCall, signedPost } from './sign.ts';

const EVENT_STREAM = 'application/vnd.amazon.eventstream';
const JSON_TYPE = 'application/json';

const chat: EndpointAdapter = {
  request: async (body, ctx) =>
    signedPost(ctx, modelUrl(ctx, ctx.stream ? 'converse-stream' : 'converse'), JSON.stringify(converseBody(body)), ctx.stream ? EVENT_STREAM : JSON_TYPE),
  response: (json, ctx) => converseChatResponse(json, ctx.model, ctx.now()),
  error: (status, json) => bedrockError(status, json),
  stream: (ctx) => new ConverseStreamTranslator(ctx.model, ctx.now()),
  usage: converseUsage,
};

const embeddings: EndpointAdapter = {
  async request(body, ctx) {
    rememberFormat(ctx, body.encoding_format);
    return signedPost(ctx, modelUrl(ctx, 'invoke'), JSON.stringify(embeddingBody(body, ctx.model)), JSON_TYPE);
  },
  response: (json, ctx) => embeddingResponse(json, ctx.model, recalledFormat(ctx)),
  error: (status, json) => bedrockError(status, json),
  usage: embeddingUsage,
};

/** Anthropic's Messages API for Claude models; the JSON answer is relayed unchanged. */
const messages: EndpointAdapter = {
  request: async (body, ctx) =>
    signedPost(ctx, modelUrl(ctx, ctx.stream ? 'invoke-with-response-stream' : 'invoke'), JSON.stringify(invokeAnthropicBody(body)), ctx.stream ? EVENT_STREAM : JSON_TYPE),
  error: (status, json) => bedrockError(status, json),
  stream: () => new AnthropicEventStreamTranslator(),
  usage: (json) => anthropicUsage(asRecord(json).usage),
};

export const bedrockAdapter: ProviderAdapter = {
  name: 'bedrock',
  baseUrl: bedrockBaseUrl,
  authHeaders: () => ({}),
  forwardedHeaders: [],
  endpoints: { 'chat.completions': chat, embeddings, messages },
  signPassThrough: signCall,
};
