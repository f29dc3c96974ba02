import type { ApiKey } from '../../persistence/entities/api-key.ts';

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
  scopes: string[];
  defaults: Record<string, unknown> | null;
  alert_emails: string[];
  expires_at: string | null;
  rotation_policy: Record<string, unknown> | null;
  object: 'api-key';
}

export function toApiKeyView(k: ApiKey): ApiKeyView {
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
    usage_limits: (k.usageLimits as Record<string, unknown> | null) ?? null,
    scopes: k.scopes,
    defaults: (k.defaults as Record<string, unknown> | null) ?? null,
    alert_emails: k.alertEmails ?? [],
    expires_at: k.expiresAt ? k.expiresAt.toISOString() : null,
    rotation_policy: (k.rotationPolicy as Record<string, unknown> | null) ?? null,
    object: 'api-key',
  };
}
