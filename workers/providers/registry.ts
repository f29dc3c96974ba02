import type { ProviderAdapter } from './contract.ts';
import { azureOpenai } from './azure-openai/adapter.ts';
import { compatibleAdapters, compatibleAliases, keyOptionalProviders } from './openai-compatible/adapter.ts';
import { openai } from './openai/adapter.ts';
import { anthropicAdapter } from './anthropic/adapter.ts';
import { bedrockAdapter } from './bedrock/adapter.ts';
import { cohereAdapter } from './cohere/adapter.ts';
import { googleAdapter } from './google/adapter.ts';
import { mistralAiAdapter } from './mistral-ai/adapter.ts';
import { vertexAiAdapter } from './vertex-ai/adapter.ts';

// Every provider the data plane can call, by the reference gateway's id. Other adapters
// register with one line each below.
const PROVIDERS = new Map<string, ProviderAdapter>();
const register = (adapter: ProviderAdapter): void => void PROVIDERS.set(adapter.name, adapter);

register(openai);
register(azureOpenai);
register(anthropicAdapter);
register(bedrockAdapter);
register(cohereAdapter);
register(googleAdapter);
register(mistralAiAdapter);
register(vertexAiAdapter);
for (const adapter of compatibleAdapters) register(adapter);

const ALIASES = new Map<string, string>([['open-ai', 'openai'], ...compatibleAliases]);

export const providerNames = (): string[] => [...PROVIDERS.keys()];

export function findProvider(name: string): ProviderAdapter | undefined {
  const id = name.toLowerCase();
  return PROVIDERS.get(id) ?? PROVIDERS.get(ALIASES.get(id) ?? '');
}

/** Providers whose key is optional (local servers). */
export const keyOptional = (name: string): boolean => keyOptionalProviders.has(name);
