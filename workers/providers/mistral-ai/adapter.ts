// Mistral AI (https://docs.mistral.ai/api): chat, embeddings and OCR. Bearer auth.
import type { CallContext, ProviderAdapter } from '../contract.ts';
import { embeddingsEndpoint } from './embeddings.ts';
import { openAIError } from './errors.ts';
import { ocrEndpoint } from './ocr.ts';
import { chatRequest } from './request-chat.ts';
import { chatResponse, mistralUsage } from './response-chat.ts';
import { MistralStreamTranslator } from './stream-chat.ts';
import { MISTRAL_BASE_URL } from './url.ts';

export const mistralAiAdapter: ProviderAdapter = {
  name: 'mistral-ai',
  baseUrl: () => MISTRAL_BASE_URL,
  authHeaders: (ctx: CallContext) => ({ authorization: `Bearer ${ctx.credentials.apiKey ?? ''}` }),
  forwardedHeaders: [],
  endpoints: {
    'chat.completions': {
      request: chatRequest,
      response: chatResponse,
      error: (status, json) => openAIError(status, json),
      stream: () => new MistralStreamTranslator(),
      usage: mistralUsage,
    },
    embeddings: embeddingsEndpoint,
    ocr: ocrEndpoint,
  },
};
