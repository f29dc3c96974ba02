// Google Gemini API (generativelanguage.googleapis.com): chat via generateContent /
// streamGenerateContent?alt=sse, embeddings via embedContent / batchEmbedContents.
// Auth is the API key in `x-goog-api-key`.
import type { CallContext, EndpointAdapter, ProviderAdapter, UpstreamCall } from '../contract.ts';
import { geminiChatBody } from './gemini-request.ts';
import { geminiChatResponse, geminiUsage, googleError } from './gemini-response.ts';
import { GeminiStreamTranslator } from './gemini-stream.ts';
import { geminiEmbedRequest, geminiEmbedResponse, geminiModelPath, recalledFormat, rememberFormat } from './gemini-embeddings.ts';

const BASE_URL = 'https://generativelanguage.googleapis.com';

const base = (ctx: CallContext): string => ctx.customHost ?? BASE_URL;

const jsonCall = (url: string, body: unknown): UpstreamCall => ({
  url,
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

const chat: EndpointAdapter = {
  request(body, ctx) {
    const method = ctx.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
    return jsonCall(`${base(ctx)}/v1beta/${geminiModelPath(ctx.model)}:${method}`, geminiChatBody(body, ctx.model));
  },
  response: (json, ctx) => geminiChatResponse(json, ctx.model, ctx.now()),
  error: (status, json) => googleError(status, json),
  stream: (ctx) => new GeminiStreamTranslator(ctx.model, ctx.now()),
  usage: geminiUsage,
};

const embeddings: EndpointAdapter = {
  request(body, ctx) {
    const { method, body: upstream } = geminiEmbedRequest(body, ctx.model);
    rememberFormat(ctx, body.encoding_format);
    return jsonCall(`${base(ctx)}/v1beta/${geminiModelPath(ctx.model)}:${method}`, upstream);
  },
  response: (json, ctx) => geminiEmbedResponse(json, ctx.model, recalledFormat(ctx)),
  error: (status, json) => googleError(status, json),
  usage: () => null,
};

export const googleAdapter: ProviderAdapter = {
  name: 'google',
  baseUrl: () => BASE_URL,
  authHeaders: (ctx): Record<string, string> => (ctx.credentials.apiKey ? { 'x-goog-api-key': ctx.credentials.apiKey } : {}),
  forwardedHeaders: [],
  endpoints: { 'chat.completions': chat, embeddings },
};
