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

// The same few custom hosts arrive on every request: remember each verdict (bounded), per
// trusted-host list since that changes the verdict.
const verdicts = new WeakMap<TrustedHosts, Map<string, string | AppError>>();
const MAX_CHECKED_HOSTS = 1_000;

function checkedBaseUrl(raw: string, trusted: TrustedHosts): string {
  let checkedHosts = verdicts.get(trusted);
  if (!checkedHosts) verdicts.set(trusted, (checkedHosts = new Map()));
  let verdict = checkedHosts.get(raw);
  if (verdict === undefined) {
    const checked = checkCustomHost(raw, trusted);
    verdict = checked instanceof AppError ? checked : checked.href.replace(/\/+$/, '');
    if (checkedHosts.size >= MAX_CHECKED_HOSTS) checkedHosts.clear();
    checkedHosts.set(raw, verdict);
  }
  if (verdict instanceof AppError) throw verdict;
  return verdict;
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
  if (h.customHost) baseUrl = checkedBaseUrl(h.customHost, trusted);
  return { provider, baseUrl, authHeaders: provider.authHeaders(h.providerKey) };
}
