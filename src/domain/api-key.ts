// Shared API key vocabulary: the control plane stores keys, workers see them resolved.

export const API_KEY_TYPES = ['organisation-service', 'organisation-user', 'workspace-service', 'workspace-user'] as const;
export type ApiKeyType = (typeof API_KEY_TYPES)[number];
export type ApiKeyStatus = 'active' | 'exhausted' | 'revoked';

export const RATE_LIMIT_TYPES = ['requests', 'tokens'] as const;
export const RATE_LIMIT_UNITS = ['rps', 'rpm', 'rph', 'rpd', 'rpw'] as const;
export interface RateLimit {
  type: (typeof RATE_LIMIT_TYPES)[number];
  unit: (typeof RATE_LIMIT_UNITS)[number];
  value: number;
}

export interface UsageLimits {
  credit_limit?: number | null;
  type?: 'cost' | 'tokens' | null;
  alert_threshold?: number | null;
  periodic_reset?: 'monthly' | 'weekly' | null;
  periodic_reset_days?: number | null;
  next_usage_reset_at?: string | null;
  /** The last hand reset (`reset_usage: true`): budgets count afresh from it (issue 8). */
  last_reset_at?: string | null;
}

export interface ApiKeyDefaults {
  metadata?: Record<string, unknown>;
  config_id?: string;
  allow_config_override?: boolean;
}

/** What a worker knows about a key after resolving its hash (never the secret). */
export interface ResolvedKey {
  id: string;
  organisationId: string;
  workspaceId: string | null;
  userId: string | null;
  type: ApiKeyType;
  status: ApiKeyStatus;
  scopes: string[];
  /** Epoch ms; null when the key never expires. */
  expiresAt: number | null;
  rateLimits: RateLimit[];
  usageLimits: UsageLimits | null;
  defaults: ApiKeyDefaults;
  /** Revision from PostgreSQL: higher means newer. */
  version: number;
}

export function keyTypeFor(level: 'organisation' | 'workspace', subType: 'user' | 'service'): ApiKeyType {
  return `${level}-${subType}`;
}

/** Organisation keys reach every workspace; workspace keys one. */
export const isOrganisationLevel = (t: ApiKeyType): boolean => t === 'organisation-service' || t === 'organisation-user';
export const isUserKey = (t: ApiKeyType): boolean => t === 'organisation-user' || t === 'workspace-user';
