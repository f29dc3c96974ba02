import type { ProviderAdapter } from '../provider.ts';

export const openai: ProviderAdapter = {
  name: 'openai',
  defaultBaseUrl: 'https://api.openai.com/v1',
  authHeaders: (key) => ({ authorization: `Bearer ${key}` }),
  forwardedHeaders: ['openai-organization', 'openai-project', 'openai-beta'],
};
