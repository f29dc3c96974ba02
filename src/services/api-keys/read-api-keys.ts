import type { EntityManager } from '@mikro-orm/postgresql';
import { forbidden, invalidParameter, notFound } from '../../domain/errors.ts';
import { ApiKeySchema } from '../../persistence/entities/index.ts';
import { isOrganisationKey, type Actor } from '../auth/actor.ts';
import { page, pageWindow, type Page, type PageArgs } from '../paging.ts';
import { findWorkspace } from '../workspaces/find-workspace.ts';
import { toApiKeyViews, type ApiKeyView } from './api-key-view.ts';
import { UUID } from './find-key.ts';
import { assertMayManage, listableTypes } from './permissions.ts';

/** At most this many ids in one batch lookup (`GET /api-keys?ids=`). */
export const MAX_BATCH_IDS = 100;

export interface ListApiKeysArgs extends PageArgs {
  workspaceId?: string | null;
  /** Batch lookup: only these keys (those the caller may see). */
  ids?: string[] | null;
}

export async function listApiKeys(em: EntityManager, actor: Actor, args: ListApiKeysArgs): Promise<Page<ApiKeyView>> {
  const window = pageWindow(args);
  const types = listableTypes(actor);
  if (!types.length) throw forbidden('The API key lacks a permission to list API keys.', 'missing_scope');

  const where: Record<string, unknown> = { organisationId: actor.organisationId, deletedAt: null, type: { $in: types } };
  if (args.ids != null) {
    if (!args.ids.length) throw invalidParameter('ids', 'ids: give at least one id');
    if (args.ids.length > MAX_BATCH_IDS) throw invalidParameter('ids', `ids: at most ${MAX_BATCH_IDS} ids`);
    const bad = args.ids.find((id) => !UUID.test(id));
    if (bad !== undefined) throw invalidParameter('ids', `ids: not a uuid: ${bad}`);
    where.id = { $in: [...new Set(args.ids.map((id) => id.toLowerCase()))] };
  }
  if (!isOrganisationKey(actor)) where.workspaceId = actor.workspaceId;
  // A person sees service keys and their own user keys, never another user's (spec, Authentication 5).
  if (actor.userId) where.$or = [{ userId: null }, { userId: actor.userId }];
  if (args.workspaceId) {
    const ws = await findWorkspace(em, actor.organisationId, args.workspaceId);
    if (!ws || (!isOrganisationKey(actor) && ws.id !== actor.workspaceId)) throw invalidParameter('workspace_id', `Unknown workspace: ${args.workspaceId}`);
    where.workspaceId = ws.id;
  }
  const [rows, total] = await em.findAndCount(ApiKeySchema, where, {
    orderBy: { createdAt: 'desc', id: 'asc' },
    ...window,
  });
  return page(await toApiKeyViews(em, rows), total);
}

export async function getApiKey(em: EntityManager, actor: Actor, id: string): Promise<ApiKeyView> {
  if (!UUID.test(id)) throw notFound('API key', 'id');
  const key = await em.findOne(ApiKeySchema, { id, organisationId: actor.organisationId, deletedAt: null });
  if (!key) throw notFound('API key', 'id');
  if (!isOrganisationKey(actor) && key.workspaceId !== actor.workspaceId) throw notFound('API key', 'id');
  if (actor.userId && key.userId && key.userId !== actor.userId) throw notFound('API key', 'id');
  assertMayManage(actor, 'read', key.type, key.workspaceId ?? null);
  const [view] = await toApiKeyViews(em, [key]);
  return view!;
}
