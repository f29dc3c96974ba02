// Cohere (https://docs.cohere.com/reference): chat over the v2 chat API, embeddings over v2
// embed, rerank over v2 rerank. Bearer auth.
import type { CallContext, ProviderAdapter } from '../contract.ts';
import { embeddingsEndpoint } from './embeddings.ts';
import { openAIError } from './errors.ts';
import { rerankEndpoint } from './rerank.ts';
import { chatRequest } from './request-chat.ts';
import { chatResponse, chatUsage } from './response-chat.ts';
import { CohereStreamTranslator } from './stream-chat.ts';
import { COHERE_BASE_URL } from './url.ts';

export const cohereAdapter: ProviderAdapter = {
  name: 'cohere',
  baseUrl: () => COHERE_BASE_URL,
  authHeaders: (ctx: CallContext) => ({ authorization: `Bearer ${ctx.credentials.apiKey ?? ''}` }),
  forwardedHeaders: [],
  endpoints: {
    'chat.completions': {
      request: chatRequest,
      response: chatResponse,
      error: (status, json) => openAIError(status, json),
      stream: (ctx) => new CohereStreamTranslator(ctx),
      usage: chatUsage,
    },
    embeddings: embeddingsEndpoint,
    rerank: rerankEndpoint,
  },
};
