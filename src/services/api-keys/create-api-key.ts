import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { isUserKey, keyTypeFor } from '../../domain/api-key.ts';
import { createApiKeySchema } from '../../domain/api-key-input.ts';
import { AppError, forbidden, invalidParameter } from '../../domain/errors.ts';
import { roleCeiling } from '../../domain/roles.ts';
import { parseWith } from '../../domain/validation.ts';
import { ApiKeySchema, UserSchema, WorkspaceMemberSchema } from '../../persistence/entities/index.ts';
import { isOrganisationKey, type Actor, type RequestMeta } from '../auth/actor.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { loadKeySettings } from '../settings/key-settings.ts';
import { findWorkspace } from '../workspaces/find-workspace.ts';
import { issueKey } from './issue-key.ts';
import { checkKeyScopes, enforcedRotationDays, settleExpiry, settleRotationPolicy } from './key-rules.ts';
import { assertMayManage } from './permissions.ts';

export interface CreateApiKeyArgs {
  /** `organisation` | `workspace`; absent on `/v2/api-keys/{sub-type}`, where it is inferred. */
  level?: string | null;
  subType: string;
  input: unknown;
}

export interface CreatedApiKey {
  id: string;
  key: string;
  object: 'api-key';
}

export async function createApiKey(em: EntityManager, actor: Actor, meta: RequestMeta, args: CreateApiKeyArgs): Promise<CreatedApiKey> {
  if (args.subType !== 'user' && args.subType !== 'service') throw invalidParameter('sub-type', 'sub-type must be user or service');
  if (args.level != null && args.level !== 'organisation' && args.level !== 'workspace') {
    throw invalidParameter('type', 'type must be organisation or workspace');
  }
  const input = parseWith(createApiKeySchema, args.input);
  const level = (args.level as 'organisation' | 'workspace' | null | undefined) ??
    (input.workspace_id || !isOrganisationKey(actor) ? 'workspace' : 'organisation');
  const type = keyTypeFor(level, args.subType);

  if (input.organisation_id && input.organisation_id !== actor.organisationId) {
    throw forbidden('organisation_id does not match the organisation of the API key.');
  }

  let workspaceId: string | null = null;
  if (level === 'workspace') {
    const ref = input.workspace_id ?? (isOrganisationKey(actor) ? null : actor.workspaceId);
    if (!ref) throw invalidParameter('workspace_id', 'workspace_id is required for workspace keys');
    const ws = await findWorkspace(em, actor.organisationId, ref);
    if (!ws) throw invalidParameter('workspace_id', `Unknown workspace: ${ref}`);
    workspaceId = ws.id;
  }
  assertMayManage(actor, 'create', type, workspaceId);

  // A user key's scopes may not exceed what its user's roles allow (spec, Authentication 5).
  let userId: string | null = null;
  let userCeiling: readonly string[] | null = null;
  if (isUserKey(type)) {
    if (!input.user_id) throw invalidParameter('user_id', 'user_id is required for user keys');
    const user = await em.findOne(UserSchema, { id: input.user_id, organisationId: actor.organisationId });
    if (!user) throw invalidParameter('user_id', `Unknown user: ${input.user_id}`);
    if (type === 'organisation-user' && user.role === 'member') {
      throw invalidParameter('user_id', 'Organisation user keys are for organisation owners and admins');
    }
    let workspaceRole = null;
    if (workspaceId) {
      const membership = await em.findOne(WorkspaceMemberSchema, { workspaceId, userId: user.id });
      if (!membership && user.role === 'member') throw invalidParameter('user_id', 'The user is not a member of the workspace');
      workspaceRole = membership?.role ?? null;
    }
    userId = user.id;
    userCeiling = roleCeiling(user.role, workspaceRole);
  } else if (input.user_id) {
    throw invalidParameter('user_id', 'user_id is only accepted for user keys');
  }

  const scopes = checkKeyScopes(actor, type, input.scopes, userCeiling);

  // Organisation and workspace key settings (spec: Rotation rules; Limits).
  const settings = await loadKeySettings(em, actor.organisationId, workspaceId);
  const expiresAt = settleExpiry(input.expires_at, settings, 'create') ?? null;
  const rotationPolicy = settleRotationPolicy(input.rotation_policy, null, enforcedRotationDays(settings, type), 'create') ?? null;

  const created = await em.transactional(async (tx) => {
    if (userId && settings.maxUserKeysPerUser != null) await assertUserKeyRoom(tx, userId, workspaceId, settings.maxUserKeysPerUser);
    const { entity, secret } = await issueKey(tx, {
      organisationId: actor.organisationId,
      workspaceId,
      userId,
      type,
      name: input.name,
      description: input.description ?? null,
      scopes,
      rateLimits: input.rate_limits ?? null,
      usageLimits: input.usage_limits ?? null,
      defaults: input.defaults ?? null,
      alertEmails: input.alert_emails ?? null,
      expiresAt,
      rotationPolicy,
      creationMode: 'api',
      createdBy: actor.keyId,
    });
    recordAudit(tx, actor, meta, {
      action: 'api_key.create',
      targetType: 'api_key',
      targetId: entity.id,
      workspaceId,
      details: { type, ...input, scopes, expires_at: expiresAt?.toISOString() ?? null, rotation_policy: rotationPolicy },
    });
    return { id: entity.id, key: secret, object: 'api-key' as const };
  });
  return created;
}

/**
 * At most `max` active (not deleted, not revoked) user keys per user per workspace (or at the
 * organisation level for organisation user keys). The user's row is locked so concurrent
 * creates for one user count one after the other.
 */
async function assertUserKeyRoom(tx: EntityManager, userId: string, workspaceId: string | null, max: number): Promise<void> {
  await tx.findOne(UserSchema, { id: userId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  const active = await tx.count(ApiKeySchema, {
    userId,
    workspaceId,
    deletedAt: null,
    status: { $ne: 'revoked' },
    type: { $in: ['workspace-user', 'organisation-user'] },
  });
  if (active >= max) {
    throw new AppError(409, 'conflict_error', 'key_limit_reached', `The user already has ${active} active user keys here; the limit is ${max}.`, 'user_id');
  }
}
