import type { EntityManager } from '@mikro-orm/postgresql';
import type { ApiKey } from '../../persistence/entities/api-key.ts';
import { currentUsageFor, type CurrentUsage } from './current-usage.ts';
import { publicRotationPolicy, publicUsageLimits, type StoredRotationPolicy, type StoredUsageLimits } from './key-rules.ts';

/** The ApiKey object of get and list answers (control-plane-schemas 2.1); the secret is masked. */
export interface ApiKeyView {
  id: string;
  key: string;
  name: string;
  description: string | null;
  type: string;
  organisation_id: string;
  workspace_id: string | null;
  user_id: string | null;
  status: string;
  created_at: string;
  last_updated_at: string;
  creation_mode: string;
  rate_limits: unknown[];
  usage_limits: Record<string, unknown> | null;
  /** Usage the last `reset_usage` cleared (0 when never reset). */
  reset_usage: number;
  /** When usage was last reset by `reset_usage: true`. */
  last_reset_at: string | null;
  /** Usage against usage_limits since the last reset; null without usage limits. */
  current_usage: CurrentUsage | null;
  scopes: string[];
  defaults: Record<string, unknown> | null;
  alert_emails: string[];
  expires_at: string | null;
  rotation_policy: Record<string, unknown> | null;
  last_rotated_at: string | null;
  /** A scheduled rotation issued a new secret that waits to be claimed once (POST /api-keys/{id}/rotation/claim). */
  rotation_pending: boolean;
  /** When that scheduled rotation happened; null when nothing waits. */
  pending_key_created_at: string | null;
  object: 'api-key';
}

/** The view of one key; `current_usage` comes from {@link toApiKeyViews} (null here). */
export function toApiKeyView(k: ApiKey, currentUsage: CurrentUsage | null = null): ApiKeyView {
  const usage = (k.usageLimits as StoredUsageLimits | null) ?? null;
  const policy = (k.rotationPolicy as StoredRotationPolicy | null) ?? null;
  return {
    id: k.id,
    key: k.keyMask,
    name: k.name,
    description: k.description ?? null,
    type: k.type,
    organisation_id: k.organisationId,
    workspace_id: k.workspaceId ?? null,
    user_id: k.userId ?? null,
    status: k.status,
    created_at: k.createdAt.toISOString(),
    last_updated_at: k.updatedAt.toISOString(),
    creation_mode: k.creationMode,
    rate_limits: k.rateLimits ?? [],
    usage_limits: publicUsageLimits(usage),
    reset_usage: usage?.reset_usage ?? 0,
    last_reset_at: usage?.last_reset_at ?? null,
    current_usage: currentUsage,
    scopes: k.scopes,
    defaults: (k.defaults as Record<string, unknown> | null) ?? null,
    alert_emails: k.alertEmails ?? [],
    expires_at: k.expiresAt ? k.expiresAt.toISOString() : null,
    rotation_policy: publicRotationPolicy(policy),
    last_rotated_at: k.lastRotatedAt ? k.lastRotatedAt.toISOString() : null,
    rotation_pending: k.pendingKeyCiphertext != null,
    pending_key_created_at: k.pendingKeyCreatedAt ? k.pendingKeyCreatedAt.toISOString() : null,
    object: 'api-key',
  };
}

/** Views with `current_usage` filled in (one request-log query for the lot). */
export async function toApiKeyViews(em: EntityManager, keys: ApiKey[]): Promise<ApiKeyView[]> {
  const usage = await currentUsageFor(em, keys);
  return keys.map((k) => toApiKeyView(k, usage.get(k.id) ?? null));
}
