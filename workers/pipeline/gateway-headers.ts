import { AppError, invalidParameter } from '../../src/domain/errors.ts';
import type { ProviderCredentials } from '../providers/contract.ts';

/** The x-gateway-* headers and credentials of one data-plane request (spec: Request headers). */
export interface GatewayHeaders {
  apiKey: string | null;
  /** `Authorization: Bearer` when it carries the provider key rather than the gateway key. */
  providerKey: string | null;
  provider: string | null;
  customHost: string | null;
  traceId: string;
  metadata: Record<string, unknown> | null;
  /** Legacy managed-provider slug (x-gateway-virtual-key). */
  virtualKey: string | null;
  /** x-gateway-config: inline JSON or a saved config's id. */
  config: string | null;
  /** x-gateway-forward-headers: names forwarded upstream as given. */
  forwardHeaders: string[];
  /** x-gateway-sensitive-headers: lower-cased names whose values are hashed in logs (`*`: all). */
  sensitiveHeaders: string[];
  /** x-gateway-request-timeout, milliseconds. */
  requestTimeoutMs: number | null;
  /** x-gateway-fetch-integrated-models (GET /v1/models only). */
  fetchIntegratedModels: boolean;
  /** x-gateway-cache-force-refresh: skip the lookup, store the fresh answer. */
  cacheForceRefresh: boolean;
  /** x-gateway-cache-namespace: separates otherwise equal cached requests. */
  cacheNamespace: string | null;
  /** x-gateway-stream-idle-timeout, milliseconds: the longest gap between stream chunks. */
  streamIdleTimeoutMs: number | null;
  /**
   * The provider key and the platform headers (A, B, C) that concern `provider`, in the adapter
   * contract's names. Read on demand: a plain OpenAI call reads none of the platform headers.
   */
  credentialsFor(provider: string): ProviderCredentials;
}

const MAX_TRACE_ID = 255;

function bearer(value: string | null): string | null {
  if (!value) return null;
  const m = /^bearer\s+(.+)$/i.exec(value.trim());
  return m ? m[1]!.trim() : null;
}

/** A list header: a JSON array of strings or comma-separated names. */
function nameList(h: Headers, name: string): string[] {
  const raw = h.get(name)?.trim();
  if (!raw) return [];
  if (raw.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw invalidParameter(name, `${name} must be a JSON array of header names or a comma-separated list`);
    }
    if (!Array.isArray(parsed) || !parsed.every((v) => typeof v === 'string')) throw invalidParameter(name, `${name} must be an array of header names`);
    return (parsed as string[]).map((v) => v.trim()).filter(Boolean);
  }
  return raw.split(',').map((v) => v.trim()).filter(Boolean);
}

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Never forwarded on request: the gateway's own headers (credentials, routing; also the loop
// guard of the reference gateway) and the framing of the connection.
const UNFORWARDABLE = new Set(['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'expect', 'proxy-authorization', 'proxy-connection']);

function forwardList(h: Headers): string[] {
  const names = nameList(h, 'x-gateway-forward-headers');
  for (const n of names) {
    const lower = n.toLowerCase();
    if (!HEADER_NAME.test(n) || lower.startsWith('x-gateway-') || UNFORWARDABLE.has(lower)) {
      throw invalidParameter('x-gateway-forward-headers', `x-gateway-forward-headers may not name "${n}"`);
    }
  }
  return names;
}

function sensitiveList(h: Headers): string[] {
  try {
    return nameList(h, 'x-gateway-sensitive-headers').map((n) => n.toLowerCase());
  } catch {
    // Malformed: treat every forwarded header as sensitive rather than log a value in clear.
    return ['*'];
  }
}

function timeout(h: Headers, name = 'x-gateway-request-timeout'): number | null {
  const raw = h.get(name)?.trim();
  if (!raw) return null;
  const ms = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(ms) || ms <= 0) throw invalidParameter(name, `${name} must be a positive integer (milliseconds)`);
  return ms;
}

const opt = (h: Headers, name: string): string | undefined => h.get(name)?.trim() || undefined;

const AZURE: [keyof ProviderCredentials, string][] = [
  ['azureResourceName', 'x-gateway-azure-resource-name'],
  ['azureDeploymentId', 'x-gateway-azure-deployment-id'],
  ['azureApiVersion', 'x-gateway-azure-api-version'],
  ['azureModelName', 'x-gateway-azure-model-name'],
  ['accessToken', 'x-gateway-azure-ad-token'],
];
const VERTEX: [keyof ProviderCredentials, string][] = [
  ['vertexProjectId', 'x-gateway-vertex-project-id'],
  ['vertexRegion', 'x-gateway-vertex-region'],
  ['vertexServiceAccountJson', 'x-gateway-vertex-service-account-json'],
];
const AWS: [keyof ProviderCredentials, string][] = [
  ['awsAccessKeyId', 'x-gateway-aws-access-key-id'],
  ['awsSecretAccessKey', 'x-gateway-aws-secret-access-key'],
  ['awsSessionToken', 'x-gateway-aws-session-token'],
  ['awsRegion', 'x-gateway-aws-region'],
];

/** The platform header groups a provider reads (reference gateway: merged when the provider matches). */
function platformGroups(provider: string): [keyof ProviderCredentials, string][][] {
  if (provider.startsWith('azure')) return [AZURE];
  if (provider.startsWith('vertex')) return [VERTEX];
  if (provider === 'bedrock' || provider === 'sagemaker') return [AWS];
  return [];
}

function platformCredentials(h: Headers, providerKey: string | null, provider: string): ProviderCredentials {
  const c: ProviderCredentials = {};
  // Anthropic's own header is accepted as the provider key too (reference gateway: Claude Code).
  const key = providerKey ?? opt(h, 'x-api-key');
  if (key) c.apiKey = key;
  for (const group of platformGroups(provider)) {
    for (const [field, header] of group) {
      const v = opt(h, header);
      if (v !== undefined) c[field] = v;
    }
  }
  return c;
}

export function readGatewayHeaders(h: Headers): GatewayHeaders {
  const direct = h.get('x-gateway-api-key')?.trim() || null;
  const auth = bearer(h.get('authorization'));
  // With x-gateway-api-key present, Authorization carries the provider's key (spec: Authentication 2).
  const apiKey = direct ?? auth;
  const providerKey = direct ? auth : null;

  let traceId = h.get('x-gateway-trace-id')?.trim() || '';
  if (traceId.length > MAX_TRACE_ID) throw invalidParameter('x-gateway-trace-id', `x-gateway-trace-id must be at most ${MAX_TRACE_ID} characters`);
  if (!traceId) traceId = crypto.randomUUID();

  let metadata: Record<string, unknown> | null = null;
  const rawMeta = h.get('x-gateway-metadata');
  if (rawMeta) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawMeta);
    } catch {
      throw invalidParameter('x-gateway-metadata', 'x-gateway-metadata must be a JSON object');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw invalidParameter('x-gateway-metadata', 'x-gateway-metadata must be a JSON object');
    }
    metadata = parsed as Record<string, unknown>;
  }

  return {
    apiKey,
    providerKey,
    provider: h.get('x-gateway-provider')?.trim() || null,
    customHost: h.get('x-gateway-custom-host')?.trim() || null,
    traceId,
    metadata,
    // Read when used (only logs, managed providers and GET /models need these): the hot path reads fewer headers.
    get virtualKey() {
      return h.get('x-gateway-virtual-key')?.trim() || null;
    },
    config: h.get('x-gateway-config')?.trim() || null,
    forwardHeaders: forwardList(h),
    get sensitiveHeaders() {
      return sensitiveList(h);
    },
    requestTimeoutMs: timeout(h),
    get fetchIntegratedModels() {
      return (h.get('x-gateway-fetch-integrated-models') ?? '').trim().toLowerCase() === 'true';
    },
    get cacheForceRefresh() {
      return (h.get('x-gateway-cache-force-refresh') ?? '').trim().toLowerCase() === 'true';
    },
    get cacheNamespace() {
      return h.get('x-gateway-cache-namespace')?.trim() || null;
    },
    streamIdleTimeoutMs: timeout(h, 'x-gateway-stream-idle-timeout'),
    credentialsFor: (provider) => platformCredentials(h, providerKey, provider),
  };
}

export const missingApiKey = (): AppError =>
  new AppError(401, 'authentication_error', 'missing_api_key', 'Send the gateway API key in x-gateway-api-key or Authorization: Bearer.');
