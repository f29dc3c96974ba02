import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { hashApiKey } from '../../domain/api-key-secret.ts';
import { AppError } from '../../domain/errors.ts';
import { intersectScopes, roleCeiling, type WorkspaceRole } from '../../domain/roles.ts';
import { parseWith } from '../../domain/validation.ts';
import { ApiKeySchema, InviteSchema, UserSchema, WorkspaceMemberSchema, WorkspaceSchema } from '../../persistence/entities/index.ts';
import type { RotationPolicy } from '../../persistence/entities/api-key.ts';
import type { User } from '../../persistence/entities/user.ts';
import type { RequestMeta } from '../auth/actor.ts';
import { issueKey } from '../api-keys/issue-key.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { loadKeySettings } from '../settings/key-settings.ts';
import { findUserByEmail } from '../users/find-user.ts';
import { acceptInviteSchema } from './invite-input.ts';

export interface AcceptedInvite {
  user_id: string;
  organisation_id: string;
  workspaces: { workspace_id: string; role: WorkspaceRole }[];
  /** The raw keys: returned this once, never stored. */
  api_keys: { id: string; workspace_id: string; key: string }[];
}

const DAY_MS = 86_400_000;

const inviteNotFound = (): AppError => new AppError(404, 'not_found_error', 'invite_not_found', 'Invite not found or already used', 'token');
const gone = (code: 'invite_expired' | 'invite_cancelled', message: string): AppError => new AppError(410, 'invalid_request_error', code, message, 'token');

/**
 * Accepting an invite (`POST /v1/invites/accept`, no API key: the single-use token is the
 * credential). In one transaction: the user (the invite's organisation role, or the existing
 * user with that e-mail), the workspace memberships, one workspace user key per workspace when
 * the invite asked for keys (its scopes ∩ the member's role ceiling), the invite marked accepted
 * and one audit event. The invite is found by the token's SHA-256 only, and locked, so a token
 * works once.
 */
export async function acceptInvite(em: EntityManager, meta: RequestMeta | null, raw: unknown): Promise<AcceptedInvite> {
  const input = parseWith(acceptInviteSchema, raw);
  const tokenHash = await hashApiKey(input.token);
  try {
    return await em.transactional(async (tx) => {
      const invite = await tx.findOne(InviteSchema, { tokenHash }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!invite || invite.status === 'accepted') throw inviteNotFound();
      if (invite.status === 'cancelled') throw gone('invite_cancelled', 'The invite was cancelled');
      const now = new Date();
      if (invite.status === 'expired' || invite.expiresAt.getTime() <= now.getTime()) throw gone('invite_expired', 'The invite has expired');
      const organisationId = invite.organisationId;

      let user: User | null = await findUserByEmail(tx, organisationId, invite.email);
      const userCreated = !user;
      if (!user) {
        user = tx.create(UserSchema, {
          id: crypto.randomUUID(),
          organisationId,
          email: invite.email,
          firstName: input.first_name ?? null,
          lastName: input.last_name ?? null,
          role: invite.role,
        });
        await tx.flush(); // parents before the rows that name them (scalar foreign keys)
      }

      const workspaces: AcceptedInvite['workspaces'] = [];
      for (const w of invite.workspaces) {
        const ws = await tx.findOne(WorkspaceSchema, { id: w.workspace_id, organisationId });
        if (!ws) continue; // deleted since the invite was sent
        const existing = await tx.findOne(WorkspaceMemberSchema, { workspaceId: ws.id, userId: user.id });
        const member = existing ?? tx.create(WorkspaceMemberSchema, { id: crypto.randomUUID(), workspaceId: ws.id, userId: user.id, role: w.role });
        workspaces.push({ workspace_id: ws.id, role: member.role });
      }
      await tx.flush();

      const apiKeys: AcceptedInvite['api_keys'] = [];
      if (invite.workspaceApiKeyScopes?.length) {
        for (const m of workspaces) {
          const scopes = intersectScopes(invite.workspaceApiKeyScopes, roleCeiling(user.role, m.role));
          if (!scopes.length) continue;
          const settings = await loadKeySettings(tx, organisationId, m.workspace_id);
          if (settings.maxUserKeysPerUser != null) {
            const held = await tx.count(ApiKeySchema, { userId: user.id, workspaceId: m.workspace_id, type: 'workspace-user', deletedAt: null });
            if (held >= settings.maxUserKeysPerUser) continue;
          }
          // The workspace's key settings apply as to any new user key: the default expiry (else the
          // maximum) and an enforced rotation cadence.
          const expiryDays = settings.defaultExpiryDays != null ? Math.min(settings.defaultExpiryDays, settings.maxExpiryDays ?? Infinity) : settings.maxExpiryDays;
          const rotationPolicy: RotationPolicy | null = settings.rotationPeriodDays
            ? { rotation_period_days: settings.rotationPeriodDays, next_rotation_at: new Date(now.getTime() + settings.rotationPeriodDays * DAY_MS).toISOString() }
            : null;
          const { entity, secret } = await issueKey(tx, {
            organisationId,
            workspaceId: m.workspace_id,
            userId: user.id,
            type: 'workspace-user',
            name: `${invite.email} (invite)`,
            description: `Created when invite ${invite.id} was accepted`,
            scopes,
            rateLimits: null,
            usageLimits: null,
            defaults: null,
            alertEmails: null,
            expiresAt: expiryDays != null ? new Date(now.getTime() + expiryDays * DAY_MS) : null,
            rotationPolicy,
            creationMode: 'auto',
            createdBy: user.id,
          });
          apiKeys.push({ id: entity.id, workspace_id: m.workspace_id, key: secret });
        }
      }

      invite.status = 'accepted';
      invite.acceptedAt = now;
      invite.acceptedUserId = user.id;
      // Actor null: the invitee, who holds no key yet. Neither the token nor the keys are recorded.
      recordAudit(tx, null, meta, {
        action: 'invite.accept',
        targetType: 'invite',
        targetId: invite.id,
        details: {
          organisation_id: organisationId,
          invite_id: invite.id,
          email: invite.email,
          user_id: user.id,
          user_created: userCreated,
          workspaces,
          api_key_ids: apiKeys.map((k) => k.id),
        },
      });
      return { user_id: user.id, organisation_id: organisationId, workspaces, api_keys: apiKeys };
    });
  } catch (err) {
    // The same e-mail joined through another route at the same moment.
    if (err instanceof UniqueConstraintViolationException) throw new AppError(409, 'conflict_error', 'conflict', 'The invitee joined the organisation concurrently; retry', 'token');
    throw err;
  }
}
