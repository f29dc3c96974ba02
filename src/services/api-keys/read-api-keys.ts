import type { EntityManager } from '@mikro-orm/postgresql';
import { forbidden, invalidParameter, notFound } from '../../domain/errors.ts';
import { ApiKeySchema } from '../../persistence/entities/index.ts';
import { isOrganisationKey, type Actor } from '../auth/actor.ts';
import { findWorkspace } from '../workspaces/find-workspace.ts';
import { toApiKeyView, type ApiKeyView } from './api-key-view.ts';
import { assertMayManage, listableTypes } from './permissions.ts';

export interface Page<T> {
  object: 'list';
  total: number;
  data: T[];
}

export interface ListApiKeysArgs {
  currentPage?: number | null;
  pageSize?: number | null;
  workspaceId?: string | null;
}

const MAX_PAGE_SIZE = 1000;

export async function listApiKeys(em: EntityManager, actor: Actor, args: ListApiKeysArgs): Promise<Page<ApiKeyView>> {
  const page = args.currentPage ?? 0;
  const size = args.pageSize ?? 100;
  if (!Number.isInteger(page) || page < 0) throw invalidParameter('current_page', 'current_page must be an integer ≥ 0');
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) throw invalidParameter('page_size', `page_size must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  const types = listableTypes(actor);
  if (!types.length) throw forbidden('The API key lacks a permission to list API keys.', 'missing_scope');

  const where: Record<string, unknown> = { organisationId: actor.organisationId, deletedAt: null, type: { $in: types } };
  if (!isOrganisationKey(actor)) where.workspaceId = actor.workspaceId;
  if (args.workspaceId) {
    const ws = await findWorkspace(em, actor.organisationId, args.workspaceId);
    if (!ws || (!isOrganisationKey(actor) && ws.id !== actor.workspaceId)) throw invalidParameter('workspace_id', `Unknown workspace: ${args.workspaceId}`);
    where.workspaceId = ws.id;
  }
  const [rows, total] = await em.findAndCount(ApiKeySchema, where, {
    orderBy: { createdAt: 'desc', id: 'asc' },
    limit: size,
    offset: page * size,
  });
  return { object: 'list', total, data: rows.map(toApiKeyView) };
}

export async function getApiKey(em: EntityManager, actor: Actor, id: string): Promise<ApiKeyView> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) throw notFound('API key', 'id');
  const key = await em.findOne(ApiKeySchema, { id, organisationId: actor.organisationId, deletedAt: null });
  if (!key) throw notFound('API key', 'id');
  if (!isOrganisationKey(actor) && key.workspaceId !== actor.workspaceId) throw notFound('API key', 'id');
  assertMayManage(actor, 'read', key.type, key.workspaceId ?? null);
  return toApiKeyView(key);
}
