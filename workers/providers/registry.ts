import { openai } from './openai/adapter.ts';
import type { ProviderAdapter } from './provider.ts';

const PROVIDERS = new Map<string, ProviderAdapter>([[openai.name, openai]]);

export const providerNames = (): string[] => [...PROVIDERS.keys()];
export const findProvider = (name: string): ProviderAdapter | undefined => PROVIDERS.get(name.toLowerCase());
