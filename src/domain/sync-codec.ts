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
  /** Issue 8: the last hand reset (`reset_usage: true`); a budget counter older than it starts again. */
  last_reset_at?: string;
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
            last_reset_at: u.last_reset_at ?? '',
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
          ...(u.last_reset_at ? { last_reset_at: u.last_reset_at } : {}),
        } as UsageLimits)
      : null,
    defaults,
    version: Number(res.version),
  };
}

// Watch (proto WatchRequest / WatchEvent): the control plane pushes changes with versions, the
// worker acknowledges what it applied and, when it (re)subscribes, says what it holds.

export type WatchAction = 'upsert' | 'delete' | 'reset';
export const API_KEY_RESOURCE = 'api_key';

/** One pushed change. */
export interface ResourceEvent {
  /** resource_change version; 0 for an answer to a held resource (its state now, not a logged change). */
  version: number;
  resourceType: string;
  /** For api_key: the hex SHA-256 of the secret. */
  resourceKey: string;
  action: WatchAction;
  /** api_key upserts: the key as a worker would resolve it now (its own `version` is the key's revision), when sent. */
  key: ResolvedKey | null;
  /** Upserts of other resource types: the resource as Resolve answers it now, when sent (else the worker invalidates). */
  resource?: ResolvedResource | null;
}

/** A non-key resource as a worker holds it (gRPC Resolve). */
export interface ResolvedResource {
  /** Its latest resource_change version. */
  version: number;
  payload: Record<string, unknown>;
}

export interface WireResolveResponse { found: boolean; version: number; payload_json: string }

export const resourceToWire = (r: ResolvedResource | null): WireResolveResponse =>
  r ? { found: true, version: r.version, payload_json: JSON.stringify(r.payload) } : { found: false, version: 0, payload_json: '' };

export function resourceFromWire(w: WireResolveResponse | null | undefined): ResolvedResource | null {
  if (!w?.found) return null;
  try {
    const payload = JSON.parse(w.payload_json) as unknown;
    if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return null;
    return { version: Number(w.version), payload: payload as Record<string, unknown> };
  } catch {
    return null;
  }
}

/** A resource the worker holds, with the version it holds (for a key: its revision). */
export interface HeldResource { type: string; key: string; version: number }

export interface WatchSubscription {
  workerId: string;
  /** The highest event version the worker applied; 0 on first start. */
  sinceVersion: number;
  held: HeldResource[];
}

export interface WireHeldResource { type: string; key: string; version: number }
export interface WireWatchRequest {
  subscribe?: { worker_id: string; since_version: number; held: WireHeldResource[] } | null;
  held?: { held: WireHeldResource[] } | null;
  ack?: { version: number } | null;
  request?: 'subscribe' | 'held' | 'ack';
}
export interface WireWatchEvent {
  version: number;
  resource_type: string;
  resource_key: string;
  action: string;
  key: WireResolveKeyResponse | null;
  resource?: WireResolveResponse | null;
}

export function watchEventToWire(e: ResourceEvent): WireWatchEvent {
  return {
    version: e.version,
    resource_type: e.resourceType,
    resource_key: e.resourceKey,
    action: e.action,
    key: e.key ? keyToWire(e.key) : null,
    resource: e.resource ? resourceToWire(e.resource) : null,
  };
}

export function watchEventFromWire(w: WireWatchEvent): ResourceEvent | null {
  if (w.action !== 'upsert' && w.action !== 'delete' && w.action !== 'reset') return null;
  return {
    version: Number(w.version),
    resourceType: w.resource_type,
    resourceKey: w.resource_key,
    action: w.action,
    key: w.key ? keyFromWire(w.key) : null,
    resource: resourceFromWire(w.resource),
  };
}

export const heldToWire = (h: HeldResource): WireHeldResource => ({ type: h.type, key: h.key, version: h.version });
export const heldFromWire = (w: WireHeldResource): HeldResource => ({ type: w.type, key: w.key, version: Number(w.version) });
