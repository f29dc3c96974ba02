import type { EntityManager } from '@mikro-orm/postgresql';
import type { ApiKeyDefaults, ApiKeyStatus, ApiKeyType, RateLimit, ResolvedKey, UsageLimits } from '../../domain/api-key.ts';

interface Row {
  id: string;
  organisation_id: string;
  workspace_id: string | null;
  user_id: string | null;
  type: ApiKeyType;
  status: ApiKeyStatus;
  scopes: string[];
  expires_at: Date | null;
  rate_limits: RateLimit[] | null;
  usage_limits: UsageLimits | null;
  defaults: ApiKeyDefaults | null;
  revision: string;
}

/** What a worker needs to admit a request with this key (gRPC ResolveKey). Deleted keys are unknown. */
export async function resolveKeyByHash(em: EntityManager, keyHash: string): Promise<ResolvedKey | null> {
  if (!/^[0-9a-f]{64}$/.test(keyHash)) return null;
  // One indexed read including the trigger-maintained revision, which the ORM does not hydrate.
  const [k] = await em.getConnection().execute<Row[]>(
    `select id, organisation_id, workspace_id, user_id, type, status, scopes, expires_at, rate_limits,
            usage_limits, defaults, revision
       from api_key where key_hash = ? and deleted_at is null`,
    [keyHash],
  );
  if (!k) return null;
  return {
    id: k.id,
    organisationId: k.organisation_id,
    workspaceId: k.workspace_id,
    userId: k.user_id,
    type: k.type,
    status: k.status,
    scopes: k.scopes,
    expiresAt: k.expires_at ? new Date(k.expires_at).getTime() : null,
    rateLimits: k.rate_limits ?? [],
    usageLimits: k.usage_limits,
    defaults: k.defaults ?? {},
    version: Number(k.revision),
  };
}
