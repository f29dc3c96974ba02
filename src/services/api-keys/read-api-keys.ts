import type { EntityManager } from '@mikro-orm/postgresql';
import { forbidden, invalidParameter, notFound } from '../../domain/errors.ts';
import { ApiKeySchema } from '../../persistence/entities/index.ts';
import { isOrganisationKey, type Actor } from '../auth/actor.ts';
import { page, pageWindow, type Page, type PageArgs } from '../paging.ts';
import { findWorkspace } from '../workspaces/find-workspace.ts';
import { toApiKeyView, type ApiKeyView } from './api-key-view.ts';
import { assertMayManage, listableTypes } from './permissions.ts';

export interface ListApiKeysArgs extends PageArgs {
  workspaceId?: string | null;
}

export async function listApiKeys(em: EntityManager, actor: Actor, args: ListApiKeysArgs): Promise<Page<ApiKeyView>> {
  const window = pageWindow(args);
  const types = listableTypes(actor);
  if (!types.length) throw forbidden('The API key lacks a permission to list API keys.', 'missing_scope');

  const where: Record<string, unknown> = { organisationId: actor.organisationId, deletedAt: null, type: { $in: types } };
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
  return page(rows.map(toApiKeyView), total);
}

export async function getApiKey(em: EntityManager, actor: Actor, id: string): Promise<ApiKeyView> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) throw notFound('API key', 'id');
  const key = await em.findOne(ApiKeySchema, { id, organisationId: actor.organisationId, deletedAt: null });
  if (!key) throw notFound('API key', 'id');
  if (!isOrganisationKey(actor) && key.workspaceId !== actor.workspaceId) throw notFound('API key', 'id');
  if (actor.userId && key.userId && key.userId !== actor.userId) throw notFound('API key', 'id');
  assertMayManage(actor, 'read', key.type, key.workspaceId ?? null);
  return toApiKeyView(key);
}
