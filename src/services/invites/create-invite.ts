import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, invalidParameter } from '../../domain/errors.ts';
import { roleCeiling } from '../../domain/roles.ts';
import { isKnownScope, isWorkspaceScope, scopesBeyond } from '../../domain/scopes.ts';
import { parseWith } from '../../domain/validation.ts';
import { InviteSchema } from '../../persistence/entities/index.ts';
import type { InviteWorkspace } from '../../persistence/entities/invite.ts';
import type { Actor, RequestMeta } from '../auth/actor.ts';
import { grantableScopes, authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { emailIs, findUserByEmail } from '../users/find-user.ts';
import { findWorkspace } from '../workspaces/find-workspace.ts';
import { createInviteSchema } from './invite-input.ts';
import { INVITE_TTL_MS, inviteLink, newInviteToken } from './invite-token.ts';

export interface CreatedInvite {
  id: string;
  invite_link: string;
}

export const conflict = (message: string, param: string | null): AppError => new AppError(409, 'conflict_error', 'conflict', message, param);

/** Who sent the invite: the person behind a user key, else the key itself. */
export const inviterOf = (actor: Actor): string => actor.userId ?? actor.keyId;

/** The e-mail must not belong to a user of the organisation already. */
export async function assertNotMember(em: EntityManager, organisationId: string, email: string): Promise<void> {
  if (await findUserByEmail(em, organisationId, email)) throw conflict('A user with this e-mail already belongs to the organisation', 'email');
}

export async function createInvite(em: EntityManager, actor: Actor, meta: RequestMeta, raw: unknown, opts: { baseUrl?: string | null } = {}): Promise<CreatedInvite> {
  authorize(actor, 'invites.create');
  const input = parseWith(createInviteSchema, raw);
  const email = input.email.toLowerCase();

  const workspaces: InviteWorkspace[] = [];
  for (const [i, w] of input.workspaces.entries()) {
    const ws = await findWorkspace(em, actor.organisationId, w.id);
    if (!ws || ws.status !== 'active') throw invalidParameter(`workspaces[${i}].id`, `Unknown workspace: ${w.id}`);
    if (workspaces.some((x) => x.workspace_id === ws.id)) throw invalidParameter(`workspaces[${i}].id`, `Workspace listed twice: ${w.id}`);
    workspaces.push({ workspace_id: ws.id, role: w.role });
  }

  // The invitee's key: workspace scopes only, none beyond the inviter's own, none beyond what
  // the invitee's roles allow in each workspace (spec, Authentication 5).
  let keyScopes: string[] | null = null;
  if (input.workspace_api_key_details) {
    const scopes = [...new Set(input.workspace_api_key_details.scopes)];
    input.workspace_api_key_details.scopes.forEach((s, i) => {
      const param = `workspace_api_key_details.scopes[${i}]`;
      if (!isKnownScope(s)) throw invalidParameter(param, `Unknown scope: ${s}`);
      if (!isWorkspaceScope(s)) throw invalidParameter(param, `${s} is an organisation scope and cannot be given to a workspace key`);
    });
    if (!workspaces.length) throw invalidParameter('workspace_api_key_details', 'workspace_api_key_details needs at least one workspace in workspaces');
    const beyond = scopesBeyond(scopes, grantableScopes(actor));
    if (beyond.length) {
      throw new AppError(403, 'permission_error', 'scope_exceeds_creator', `Cannot grant scopes the inviting key does not hold: ${beyond.join(', ')}`, 'workspace_api_key_details.scopes');
    }
    for (const [i, w] of workspaces.entries()) {
      const beyondRole = scopesBeyond(scopes, roleCeiling(input.role, w.role));
      if (beyondRole.length) {
        throw new AppError(403, 'permission_error', 'scope_exceeds_role', `The role ${w.role} in workspaces[${i}] does not allow: ${beyondRole.join(', ')}`, 'workspace_api_key_details.scopes');
      }
    }
    keyScopes = scopes;
  }

  const { token, hash } = await newInviteToken();
  try {
    const id = await em.transactional(async (tx) => {
      await assertNotMember(tx, actor.organisationId, email);
      const now = new Date();
      const pending = await tx.find(InviteSchema, { organisationId: actor.organisationId, status: 'pending', ...emailIs(email) }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      for (const p of pending) {
        if (p.expiresAt.getTime() > now.getTime()) throw conflict('A pending invite for this e-mail exists already', 'email');
        p.status = 'expired'; // superseded: only one pending invite per e-mail (invite_one_pending)
      }
      if (pending.length) await tx.flush();
      const invite = tx.create(InviteSchema, {
        id: crypto.randomUUID(),
        organisationId: actor.organisationId,
        email,
        role: input.role,
        workspaces,
        workspaceApiKeyScopes: keyScopes,
        tokenHash: hash,
        status: 'pending',
        expiresAt: new Date(now.getTime() + INVITE_TTL_MS),
        acceptedAt: null,
        acceptedUserId: null,
        invitedBy: inviterOf(actor),
        createdAt: now,
        updatedAt: now,
      });
      // The token and the link never reach the audit log.
      recordAudit(tx, actor, meta, {
        action: 'invite.create',
        targetType: 'invite',
        targetId: invite.id,
        details: { email, role: input.role, workspaces, workspace_api_key_details: keyScopes ? { scopes: keyScopes } : null, expires_at: invite.expiresAt.toISOString() },
      });
      return invite.id;
    });
    return { id, invite_link: inviteLink(token, opts.baseUrl) };
  } catch (err) {
    // A concurrent invite (or a user created meanwhile) for the same e-mail.
    if (err instanceof UniqueConstraintViolationException) throw conflict('A pending invite for this e-mail exists already', 'email');
    throw err;
  }
}
