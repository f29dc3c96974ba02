import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../domain/errors.ts';
import { workspaceSettingsSchema } from '../../domain/tenancy-settings.ts';
import { parseWith } from '../../domain/validation.ts';
import { ApiKeySchema, WorkspaceSchema } from '../../persistence/entities/index.ts';
import type { Workspace } from '../../persistence/entities/workspace.ts';
import type { Actor, RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { mergeSettings } from '../organisation/settings.ts';
import { addMembersInTx, type AutoCreatedKeyList } from '../workspace-members/write-members.ts';
import { requireWorkspace } from './read-workspaces.ts';
import { createWorkspaceSchema, updateWorkspaceSchema, type WorkspaceDefaultsInput } from './workspace-input.ts';
import { generateWorkspaceSlug } from './workspace-slug.ts';
import { toWorkspaceView, type StoredWorkspaceDefaults, type WorkspaceView } from './workspace-view.ts';

const conflict = (message: string, param: string | null): AppError => new AppError(409, 'conflict_error', 'conflict', message, param);

/** Given fields replace the stored ones; `null` clears one. */
function mergeDefaults(stored: StoredWorkspaceDefaults, given: WorkspaceDefaultsInput | null | undefined): StoredWorkspaceDefaults {
  const out: Record<string, unknown> = { ...stored };
  for (const [k, v] of Object.entries(given ?? {})) {
    if (v === null || v === undefined) delete out[k];
    else out[k] = v;
  }
  return out as StoredWorkspaceDefaults;
}

const limitsOrNull = <T>(v: T[] | null | undefined): T[] | null => (v && v.length ? v : null);

export interface CreatedWorkspace extends WorkspaceView {
  auto_created_api_keys: AutoCreatedKeyList;
}

async function freeSlug(em: EntityManager, name: string): Promise<string> {
  for (let i = 0; i < 5; i++) {
    const slug = generateWorkspaceSlug(name);
    if (!(await em.count(WorkspaceSchema, { slug }))) return slug;
  }
  throw conflict('Could not generate a free slug; give one explicitly', 'slug');
}

/** POST /admin/workspaces: the workspace, its initial members (role member) and their auto-created keys, in one transaction. */
export async function createWorkspace(em: EntityManager, actor: Actor, meta: RequestMeta, input: unknown): Promise<CreatedWorkspace> {
  authorize(actor, 'workspaces.create');
  const body = parseWith(createWorkspaceSchema, input);
  const settings = body.settings === undefined || body.settings === null ? {} : mergeSettings(workspaceSettingsSchema, {}, body.settings, 'settings');
  if (body.slug && (await em.count(WorkspaceSchema, { slug: body.slug }))) throw conflict(`A workspace with slug ${body.slug} already exists`, 'slug');
  const slug = body.slug ?? (await freeSlug(em, body.name));
  try {
    return await em.transactional(async (tx) => {
      const ws = tx.create(WorkspaceSchema, {
        id: crypto.randomUUID(),
        organisationId: actor.organisationId,
        slug,
        name: body.name,
        description: body.description ?? null,
        isDefault: false,
        defaults: mergeDefaults({}, body.defaults) as Record<string, unknown>,
        settings,
        usageLimits: limitsOrNull(body.usage_limits),
        rateLimits: limitsOrNull(body.rate_limits),
        status: 'active',
      });
      // Scalar foreign keys carry no ordering hints: the workspace row goes first.
      await tx.flush();
      const members = await addMembersInTx(tx, actor, meta, ws, (body.users ?? []).map((id, i) => ({ userId: id, role: 'member' as const, param: `users[${i}]` })));
      recordAudit(tx, actor, meta, {
        action: 'workspace.create',
        targetType: 'workspace',
        targetId: ws.id,
        workspaceId: ws.id,
        details: { ...body, slug, settings },
      });
      return { ...toWorkspaceView(ws), auto_created_api_keys: members.auto_created_api_keys };
    });
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw conflict(`A workspace with slug ${slug} already exists`, 'slug');
    throw err;
  }
}

/** PUT /admin/workspaces/{id} and /v2/workspaces/{id}: given fields replace, `null` clears; settings merge. */
export async function updateWorkspace(em: EntityManager, actor: Actor, meta: RequestMeta, idOrSlug: string, input: unknown): Promise<WorkspaceView> {
  authorize(actor, 'workspaces.update');
  const body = parseWith(updateWorkspaceSchema, input);
  const ws = await requireWorkspace(em, actor, idOrSlug);
  if (body.status === 'archived' && ws.isDefault) throw conflict('The default workspace cannot be archived', 'status');
  return em.transactional(async (tx) => {
    const row = await tx.findOneOrFail(WorkspaceSchema, { id: ws.id });
    if (body.name !== undefined) row.name = body.name;
    if (body.description !== undefined) row.description = body.description ?? null;
    if (body.defaults !== undefined) row.defaults = mergeDefaults((row.defaults ?? {}) as StoredWorkspaceDefaults, body.defaults) as Record<string, unknown>;
    if (body.usage_limits !== undefined) row.usageLimits = limitsOrNull(body.usage_limits);
    if (body.rate_limits !== undefined) row.rateLimits = limitsOrNull(body.rate_limits);
    if (body.settings !== undefined) row.settings = body.settings === null ? {} : mergeSettings(workspaceSettingsSchema, row.settings, body.settings, 'settings');
    if (body.status !== undefined) row.status = body.status;
    recordAudit(tx, actor, meta, {
      action: 'workspace.update',
      targetType: 'workspace',
      targetId: row.id,
      workspaceId: row.id,
      details: { ...body, ...(body.settings !== undefined ? { settings: row.settings } : {}) },
    });
    await tx.flush();
    return toWorkspaceView(row);
  });
}

export interface DeletedWorkspace {
  id: string;
  slug: string;
  deleted_api_keys: number;
}

/**
 * DELETE /admin/workspaces/{id}: the workspace's API keys are deleted first (so they stop working
 * and workers see a newer revision), then the workspace with its memberships. The default
 * workspace stays.
 */
export async function deleteWorkspace(em: EntityManager, actor: Actor, meta: RequestMeta, idOrSlug: string): Promise<DeletedWorkspace> {
  authorize(actor, 'workspaces.delete');
  const ws: Workspace = await requireWorkspace(em, actor, idOrSlug);
  if (ws.isDefault) throw conflict('The default workspace cannot be deleted', 'id');
  return em.transactional(async (tx) => {
    const deleted = await tx.nativeUpdate(ApiKeySchema, { workspaceId: ws.id, deletedAt: null }, { deletedAt: new Date() });
    await tx.nativeDelete(WorkspaceSchema, { id: ws.id });
    recordAudit(tx, actor, meta, {
      action: 'workspace.delete',
      targetType: 'workspace',
      targetId: ws.id,
      workspaceId: ws.id,
      details: { slug: ws.slug, name: ws.name, deleted_api_keys: deleted },
    });
    return { id: ws.id, slug: ws.slug, deleted_api_keys: deleted };
  });
}
