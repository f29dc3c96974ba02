// Managed providers (`@slug`, legacy virtual keys) from the control plane (issue 6 item 4,
// issue 4 item 10): the gRPC Resolve answer, held by the worker's ResourceCache and kept fresh
// by Watch, so a request costs no round trip once the provider is held.
import { AppError } from '../../src/domain/errors.ts';
import type { ResourceCache } from '../sync/resource-cache.ts';
import type { ProviderCredentials } from './contract.ts';
import type { ProviderDirectory, ResolvedProvider } from './directory.ts';

const CREDENTIAL_FIELDS: readonly (keyof ProviderCredentials)[] = [
  'apiKey',
  'azureResourceName',
  'azureDeploymentId',
  'azureApiVersion',
  'azureModelName',
  'awsAccessKeyId',
  'awsSecretAccessKey',
  'awsSessionToken',
  'awsRegion',
  'vertexProjectId',
  'vertexRegion',
  'vertexServiceAccountJson',
  'vertexTokenUrl',
  'accessToken',
];

interface ProviderPayload {
  provider?: unknown;
  slug?: unknown;
  status?: unknown;
  status_reason?: unknown;
  credentials?: Record<string, unknown>;
  custom_host?: unknown;
  custom_headers?: unknown;
}

/** The payload's credentials, only the contract's fields, only strings. */
function credentialsOf(raw: Record<string, unknown> | undefined): ProviderCredentials {
  const out: ProviderCredentials = {};
  for (const f of CREDENTIAL_FIELDS) {
    const v = raw?.[f];
    if (typeof v === 'string' && v) out[f] = v;
  }
  return out;
}

export class ManagedProviderDirectory implements ProviderDirectory {
  constructor(private readonly resources: ResourceCache) {}

  async resolveProvider(workspaceId: string, slug: string): Promise<ResolvedProvider | null> {
    const found = await this.resources.getOrStale('provider', `${workspaceId}:${slug}`);
    if (!found) return null;
    const p = found.payload as ProviderPayload;
    const status = typeof p.status === 'string' ? p.status : 'active';
    if (status === 'exhausted') throw new AppError(429, 'rate_limit_error', 'provider_usage_limit_exceeded', `The usage limit of provider @${slug} is used up.`);
    if (status === 'expired') throw new AppError(403, 'permission_error', 'provider_expired', `Provider @${slug} has expired.`);
    if (status !== 'active') {
      throw new AppError(503, 'service_unavailable_error', 'provider_unavailable', `Provider @${slug} cannot be used right now${typeof p.status_reason === 'string' ? `: ${p.status_reason}` : ''}.`);
    }
    if (typeof p.provider !== 'string' || !p.provider) return null;
    const headers = p.custom_headers && typeof p.custom_headers === 'object' ? (p.custom_headers as Record<string, string>) : null;
    return {
      provider: p.provider,
      credentials: credentialsOf(p.credentials),
      ...(typeof p.custom_host === 'string' && p.custom_host ? { customHost: p.custom_host } : {}),
      ...(headers && Object.keys(headers).length ? { customHeaders: headers } : {}),
    };
  }
}
