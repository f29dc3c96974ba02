// Authentication 6: members added to a workspace whose settings say so get a workspace user key
// with only the auto-create scopes (bounded by what their roles allow).
import type { EntityManager } from '@mikro-orm/postgresql';
import { intersectScopes, roleCeiling, type WorkspaceRole } from '../../domain/roles.ts';
import { DATA_PLANE_SCOPE, isWorkspaceScope } from '../../domain/scopes.ts';
import type { EffectiveKeySettings } from '../../domain/tenancy-settings.ts';
import { ApiKeySchema } from '../../persistence/entities/index.ts';
import type { User } from '../../persistence/entities/user.ts';
import type { Workspace } from '../../persistence/entities/workspace.ts';
import { issueKey } from '../api-keys/issue-key.ts';
import type { Actor, RequestMeta } from '../auth/actor.ts';
import { recordAudit } from '../audit/record-audit.ts';

const DAY_MS = 86_400_000;

export interface AutoCreatedKey {
  id: string;
  user_id: string;
  workspace_id: string;
  /** The secret: shown once, here. */
  key: string;
  scopes: string[];
  object: 'api-key';
}

/** Scopes of an auto-created key: the setting (default: completions) ∩ the member's role ceiling. */
export function autoCreateScopes(settings: EffectiveKeySettings, user: User, role: WorkspaceRole): string[] {
  const wanted = settings.autoCreateScopes ?? [DATA_PLANE_SCOPE];
  return [...new Set(intersectScopes(wanted, roleCeiling(user.role, role)).filter(isWorkspaceScope))];
}

/**
 * Creates the key in the caller's transaction, with its own `api_key.create` audit event.
 * Nothing when auto-creation is off, when the member already holds an active user key in the
 * workspace, or when no scope would remain.
 */
export async function autoCreateUserKey(
  tx: EntityManager,
  actor: Actor,
  meta: RequestMeta,
  ws: Workspace,
  user: User,
  role: WorkspaceRole,
  settings: EffectiveKeySettings,
): Promise<AutoCreatedKey | null> {
  if (!settings.autoCreate) return null;
  const now = new Date();
  const held = await tx.count(ApiKeySchema, {
    workspaceId: ws.id,
    userId: user.id,
    type: 'workspace-user',
    status: 'active',
    deletedAt: null,
    $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }],
  });
  if (held > 0) return null;
  const scopes = autoCreateScopes(settings, user, role);
  if (!scopes.length) return null;

  const rotationPolicy = settings.rotationPeriodDays
    ? { rotation_period_days: settings.rotationPeriodDays, next_rotation_at: new Date(now.getTime() + settings.rotationPeriodDays * DAY_MS).toISOString() }
    : null;
  // As for any new key: the default expiry, else the maximum, when one is set.
  const expiryDays = settings.defaultExpiryDays ?? settings.maxExpiryDays;
  const expiresAt = expiryDays ? new Date(now.getTime() + Math.min(expiryDays, settings.maxExpiryDays ?? expiryDays) * DAY_MS) : null;
  const name = `${user.email} (${ws.slug})`.slice(0, 255);
  const { entity, secret } = await issueKey(tx, {
    organisationId: ws.organisationId,
    workspaceId: ws.id,
    userId: user.id,
    type: 'workspace-user',
    name,
    description: 'Created automatically when the user joined the workspace',
    scopes,
    rateLimits: null,
    usageLimits: null,
    defaults: null,
    alertEmails: null,
    expiresAt,
    rotationPolicy,
    creationMode: 'auto',
    createdBy: actor.keyId,
  });
  recordAudit(tx, actor, meta, {
    action: 'api_key.create',
    targetType: 'api_key',
    targetId: entity.id,
    workspaceId: ws.id,
    details: {
      type: 'workspace-user',
      creation_mode: 'auto',
      name,
      user_id: user.id,
      workspace_id: ws.id,
      scopes,
      expires_at: expiresAt?.toISOString() ?? null,
      rotation_policy: rotationPolicy,
    },
  });
  return { id: entity.id, user_id: user.id, workspace_id: ws.id, key: secret, scopes, object: 'api-key' };
}
