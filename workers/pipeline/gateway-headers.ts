import { AppError, invalidParameter } from '../../src/domain/errors.ts';

/** The x-gateway-* headers and credentials of one data-plane request (spec: Request headers). */
export interface GatewayHeaders {
  apiKey: string | null;
  /** `Authorization: Bearer` when it carries the provider key rather than the gateway key. */
  providerKey: string | null;
  provider: string | null;
  customHost: string | null;
  traceId: string;
  metadata: Record<string, unknown> | null;
}

const MAX_TRACE_ID = 255;

function bearer(value: string | null): string | null {
  if (!value) return null;
  const m = /^bearer\s+(.+)$/i.exec(value.trim());
  return m ? m[1]!.trim() : null;
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
  };
}

export const missingApiKey = (): AppError =>
  new AppError(401, 'authentication_error', 'missing_api_key', 'Send the gateway API key in x-gateway-api-key or Authorization: Bearer.');
