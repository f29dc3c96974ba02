import type { ProviderAdapter } from '../contract.ts';

// OpenAI speaks the gateway's own shapes: every endpoint is relayed on the same path (the
// pipeline's default), so no endpoint adapters are needed.
export const openai: ProviderAdapter = {
  name: 'openai',
  baseUrl: () => 'https://api.openai.com/v1',
  authHeaders: (ctx): Record<string, string> => (ctx.credentials.apiKey ? { authorization: `Bearer ${ctx.credentials.apiKey}` } : {}),
  // Also accepted as x-gateway-openai-* (reference gateway: provider-specific headers).
  forwardedHeaders: ['openai-organization', 'openai-project', 'openai-beta'],
  endpoints: {},
};
