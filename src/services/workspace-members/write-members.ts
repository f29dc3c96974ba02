import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { AppError, invalidParameter, notFound } from '../../domain/errors.ts';
import { WORKSPACE_ROLES, type WorkspaceRole } from '../../domain/roles.ts';
import { parseWith } from '../../domain/validation.ts';
import { ApiKeySchema, UserSchema, WorkspaceMemberSchema } from '../../persistence/entities/index.ts';
import type { User } from '../../persistence/entities/user.ts';
import type { Workspace } from '../../persistence/entities/workspace.ts';
import type { Actor, RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { loadKeySettings } from '../settings/key-settings.ts';
import { requireWorkspace } from '../workspaces/read-workspaces.ts';
import { autoCreateUserKey, type AutoCreatedKey } from './auto-create-key.ts';
import { toMemberView, type WorkspaceMemberView } from './member-view.ts';
import { isUuid } from './read-members.ts';

const roleSchema = z.enum(WORKSPACE_ROLES, { error: `must be one of ${WORKSPACE_ROLES.join(', ')}` });

export const addMembersSchema = z.strictObject({
  users: z
    .array(z.strictObject({ id: z.uuid('must be a user id (uuid)'), role: roleSchema }))
    .min(1, 'at least one user is required')
    .max(1000),
});

export const updateMemberSchema = z.strictObject({ role: roleSchema });

export interface MemberEntry {
  userId: string;
  role: WorkspaceRole;
  /** How the caller named this user, for errors (`users[2].id`). */
  param: string;
}

export type AutoCreatedKeyList = AutoCreatedKey[];

export interface MembersAdded {
  workspace_id: string;
  added: string[];
  updated: string[];
  users: WorkspaceMemberView[];
  auto_created_api_keys: AutoCreatedKey[];
}

/**
 * Adds members (or changes the role of those already in) inside the caller's transaction; the
 * workspace row must already be flushed. New members get an auto-created user key when the
 * workspace's settings say so. Audit of the membership change is the caller's.
 */
export async function addMembersInTx(tx: EntityManager, actor: Actor, meta: RequestMeta, ws: Workspace, entries: MemberEntry[]): Promise<MembersAdded> {
  const seen = new Set<string>();
  for (const e of entries) {
    if (seen.has(e.userId)) throw invalidParameter(e.param, `${e.param}: the user is listed twice`);
    seen.add(e.userId);
  }
  const users = entries.length ? await tx.find(UserSchema, { id: { $in: entries.map((e) => e.userId) }, organisationId: ws.organisationId }) : [];
  const usersById = new Map(users.map((u) => [u.id, u]));
  for (const e of entries) {
    if (!usersById.has(e.userId)) throw invalidParameter(e.param, `${e.param}: not a user of the organisation: ${e.userId}`);
  }
  const existing = entries.length ? await tx.find(WorkspaceMemberSchema, { workspaceId: ws.id, userId: { $in: entries.map((e) => e.userId) } }) : [];
  const existingByUser = new Map(existing.map((m) => [m.userId, m]));

  // Members added together joined at the same moment (lists order them by that, then user id).
  const now = new Date();
  const added: { user: User; role: WorkspaceRole }[] = [];
  const updated: string[] = [];
  const members = [];
  for (const e of entries) {
    const m = existingByUser.get(e.userId);
    if (m) {
      if (m.role !== e.role) {
        m.role = e.role;
        updated.push(e.userId);
      }
      members.push(m);
    } else {
      members.push(tx.create(WorkspaceMemberSchema, { id: crypto.randomUUID(), workspaceId: ws.id, userId: e.userId, role: e.role, createdAt: now, updatedAt: now }));
      added.push({ user: usersById.get(e.userId)!, role: e.role });
    }
  }
  await tx.flush();

  const keys: AutoCreatedKey[] = [];
  if (added.length) {
    const settings = await loadKeySettings(tx, ws.organisationId, ws.id);
    for (const a of added) {
      const key = await autoCreateUserKey(tx, actor, meta, ws, a.user, a.role, settings);
      if (key) keys.push(key);
    }
  }
  return {
    workspace_id: ws.id,
    added: added.map((a) => a.user.id),
    updated,
    users: members.map((m) => toMemberView(m, usersById.get(m.userId)!)),
    auto_created_api_keys: keys,
  };
}

/** POST /admin/workspaces/{id}/users: add users with roles; those already in get the new role. */
export async function addMembers(em: EntityManager, actor: Actor, meta: RequestMeta, workspaceRef: string, input: unknown): Promise<MembersAdded> {
  authorize(actor, 'workspace_users.create');
  const body = parseWith(addMembersSchema, input);
  const ws = await requireWorkspace(em, actor, workspaceRef, 'workspace_id');
  const run = () => em.transactional(async (tx) => {
    const result = await addMembersInTx(tx, actor, meta, ws, body.users.map((u, i) => ({ userId: u.id, role: u.role, param: `users[${i}].id` })));
    recordAudit(tx, actor, meta, {
      action: 'workspace_member.add',
      targetType: 'workspace',
      targetId: ws.id,
      workspaceId: ws.id,
      details: { workspace_id: ws.id, users: body.users, added: result.added, updated: result.updated },
    });
    return result;
  });
  try {
    return await run();
  } catch (err) {
    // Another request added one of these users in the meantime.
    if (err instanceof UniqueConstraintViolationException) throw new AppError(409, 'conflict_error', 'conflict', 'A user was added to the workspace concurrently; retry', 'users');
    throw err;
  }
}

async function requireMember(em: EntityManager, ws: Workspace, userId: string) {
  const m = isUuid(userId) ? await em.findOne(WorkspaceMemberSchema, { workspaceId: ws.id, userId }) : null;
  if (!m) throw notFound('Workspace member', 'user_id');
  return m;
}

/** PUT /admin/workspaces/{id}/users/{userId}: change the member's role. */
export async function updateMember(em: EntityManager, actor: Actor, meta: RequestMeta, workspaceRef: string, userId: string, input: unknown): Promise<WorkspaceMemberView> {
  authorize(actor, 'workspace_users.update');
  const body = parseWith(updateMemberSchema, input);
  const ws = await requireWorkspace(em, actor, workspaceRef, 'workspace_id');
  return em.transactional(async (tx) => {
    const m = await requireMember(tx, ws, userId);
    const user = await tx.findOneOrFail(UserSchema, { id: m.userId });
    const previous = m.role;
    m.role = body.role;
    recordAudit(tx, actor, meta, {
      action: 'workspace_member.update',
      targetType: 'workspace_member',
      targetId: user.id,
      workspaceId: ws.id,
      details: { workspace_id: ws.id, user_id: user.id, role: body.role, previous_role: previous },
    });
    await tx.flush();
    return toMemberView(m, user);
  });
}

export interface MemberRemoved {
  workspace_id: string;
  user_id: string;
  /** User keys of the member in this workspace, deleted with the membership. */
  deleted_api_keys: number;
}

/** DELETE /admin/workspaces/{id}/users/{userId}: the member's user keys in the workspace stop working with it. */
export async function removeMember(em: EntityManager, actor: Actor, meta: RequestMeta, workspaceRef: string, userId: string): Promise<MemberRemoved> {
  authorize(actor, 'workspace_users.delete');
  const ws = await requireWorkspace(em, actor, workspaceRef, 'workspace_id');
  return em.transactional(async (tx) => {
    const m = await requireMember(tx, ws, userId);
    const deleted = await tx.nativeUpdate(
      ApiKeySchema,
      { workspaceId: ws.id, userId: m.userId, type: 'workspace-user', deletedAt: null },
      { deletedAt: new Date() },
    );
    tx.remove(m);
    recordAudit(tx, actor, meta, {
      action: 'workspace_member.remove',
      targetType: 'workspace_member',
      targetId: m.userId,
      workspaceId: ws.id,
      details: { workspace_id: ws.id, user_id: m.userId, role: m.role, deleted_api_keys: deleted },
    });
    return { workspace_id: ws.id, user_id: m.userId, deleted_api_keys: deleted };
  });
}
