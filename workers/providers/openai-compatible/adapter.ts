import type { ProviderAdapter } from '../contract.ts';
import { COMPATIBLE_PROVIDERS, type CompatibleProvider } from './table.ts';

/** One adapter from a table row: OpenAI's paths relayed unchanged, the key in the row's header. */
export function compatibleAdapter(row: CompatibleProvider): ProviderAdapter {
  const header = row.authHeader ?? 'authorization';
  return {
    name: row.id,
    baseUrl: () => row.baseUrl,
    authHeaders: (ctx) => {
      const key = ctx.credentials.apiKey;
      if (!key) return {};
      return { [header]: header === 'authorization' ? `Bearer ${key}` : key };
    },
    forwardedHeaders: [],
    endpoints: {},
  };
}

export const compatibleAdapters: readonly ProviderAdapter[] = COMPATIBLE_PROVIDERS.map(compatibleAdapter);

/** Ids (and aliases) of providers that may be called without a key. */
export const keyOptionalProviders: ReadonlySet<string> = new Set(COMPATIBLE_PROVIDERS.filter((r) => r.keyOptional).map((r) => r.id));

export const compatibleAliases: ReadonlyMap<string, string> = new Map(COMPATIBLE_PROVIDERS.flatMap((r) => (r.aliases ?? []).map((a) => [a, r.id] as const)));
