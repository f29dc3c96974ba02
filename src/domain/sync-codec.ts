// Maps the gRPC wire shapes (proto/worker_sync.proto) to domain types and back.
// proto3 has no null: empty strings and zeros stand for "not set".
import type { ApiKeyDefaults, ApiKeyStatus, ApiKeyType, RateLimit, ResolvedKey, UsageLimits } from './api-key.ts';

export interface WireRateLimit { type: string; unit: string; value: number }
export interface WireUsageLimits {
  present: boolean;
  credit_limit: number;
  type: string;
  alert_threshold: number;
  periodic_reset: string;
  periodic_reset_days: number;
  next_usage_reset_at: string;
}
export interface WireApiKey {
  id: string;
  organisation_id: string;
  workspace_id: string;
  user_id: string;
  type: string;
  status: string;
  scopes: string[];
  expires_at_ms: number;
  rate_limits: WireRateLimit[];
  usage_limits: WireUsageLimits | null;
  defaults_json: string;
}
export interface WireResolveKeyResponse { found: boolean; key: WireApiKey | null; version: number }

export function keyToWire(k: ResolvedKey): WireResolveKeyResponse {
  const u = k.usageLimits;
  return {
    found: true,
    version: k.version,
    key: {
      id: k.id,
      organisation_id: k.organisationId,
      workspace_id: k.workspaceId ?? '',
      user_id: k.userId ?? '',
      type: k.type,
      status: k.status,
      scopes: k.scopes,
      expires_at_ms: k.expiresAt ?? 0,
      rate_limits: k.rateLimits.map((r) => ({ type: r.type, unit: r.unit, value: r.value })),
      usage_limits: u
        ? {
            present: true,
            credit_limit: u.credit_limit ?? 0,
            type: u.type ?? '',
            alert_threshold: u.alert_threshold ?? 0,
            periodic_reset: u.periodic_reset ?? '',
            periodic_reset_days: u.periodic_reset_days ?? 0,
            next_usage_reset_at: u.next_usage_reset_at ?? '',
          }
        : null,
      defaults_json: JSON.stringify(k.defaults ?? {}),
    },
  };
}

const orNull = <T>(v: T | '' | 0): T | null => (v === '' || v === 0 ? null : v);

export function keyFromWire(res: WireResolveKeyResponse): ResolvedKey | null {
  const k = res.key;
  if (!res.found || !k) return null;
  const u = k.usage_limits;
  let defaults: ApiKeyDefaults = {};
  try {
    defaults = k.defaults_json ? (JSON.parse(k.defaults_json) as ApiKeyDefaults) : {};
  } catch {
    defaults = {};
  }
  return {
    id: k.id,
    organisationId: k.organisation_id,
    workspaceId: orNull(k.workspace_id),
    userId: orNull(k.user_id),
    type: k.type as ApiKeyType,
    status: k.status as ApiKeyStatus,
    scopes: k.scopes ?? [],
    expiresAt: orNull(Number(k.expires_at_ms)),
    rateLimits: (k.rate_limits ?? []).map((r) => ({ type: r.type, unit: r.unit, value: Number(r.value) }) as RateLimit),
    usageLimits: u?.present
      ? ({
          credit_limit: orNull(Number(u.credit_limit)),
          type: orNull(u.type),
          alert_threshold: orNull(Number(u.alert_threshold)),
          periodic_reset: orNull(u.periodic_reset),
          periodic_reset_days: orNull(u.periodic_reset_days),
          next_usage_reset_at: orNull(u.next_usage_reset_at),
        } as UsageLimits)
      : null,
    defaults,
    version: Number(res.version),
  };
}
