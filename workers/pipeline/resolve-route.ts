import { AppError, invalidParameter } from '../../src/domain/errors.ts';
import { checkCustomHost, type TrustedHosts } from '../../src/domain/net/custom-host.ts';
import type { ProviderAdapter } from '../providers/provider.ts';
import { findProvider, providerNames } from '../providers/registry.ts';
import type { GatewayHeaders } from './gateway-headers.ts';

export interface Route {
  provider: ProviderAdapter;
  baseUrl: string;
  authHeaders: Record<string, string>;
}

/** ARCHITECTURE.md request flow, step 3, for "provider name + Authorization" with an optional custom host. */
export function resolveRoute(h: GatewayHeaders, trusted: TrustedHosts): Route {
  if (!h.provider) {
    throw new AppError(400, 'invalid_request_error', 'missing_provider', 'Name the provider in x-gateway-provider (with Authorization: Bearer <provider key>).', 'x-gateway-provider');
  }
  const provider = findProvider(h.provider);
  if (!provider) {
    throw invalidParameter('x-gateway-provider', `Unknown provider "${h.provider}". Supported: ${providerNames().join(', ')}`);
  }
  if (!h.providerKey) {
    throw new AppError(400, 'invalid_request_error', 'missing_provider_key', `Send the ${provider.name} key as Authorization: Bearer <key>, with the gateway key in x-gateway-api-key.`, 'authorization');
  }
  let baseUrl = provider.defaultBaseUrl;
  if (h.customHost) {
    const checked = checkCustomHost(h.customHost, trusted);
    if (checked instanceof AppError) throw checked;
    baseUrl = checked.href.replace(/\/+$/, '');
  }
  return { provider, baseUrl, authHeaders: provider.authHeaders(h.providerKey) };
}
