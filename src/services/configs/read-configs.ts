import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../domain/errors.ts';
import { ConfigSchema, ConfigVersionSchema } from '../../persistence/entities/index.ts';
import type { Actor } from '../auth/actor.ts';
import { isOrganisationKey } from '../auth/actor.ts';
import { assertVisible, authorize } from '../auth/authorize.ts';
import { page, type Page } from '../paging.ts';
import { findWorkspace } from '../workspaces/find-workspace.ts';
import { findVisibleConfig } from './find-config.ts';
import { toConfigVersionView, toConfigView, type ConfigDetailView, type ConfigVersionView, type ConfigView } from './config-view.ts';

/** GET /configs: every live config the caller can see (no paging, per the catalogue), optionally of one workspace. */
export async function listConfigs(em: EntityManager, actor: Actor, args: { workspaceId?: string | null } = {}): Promise<ConfigView[]> {
  authorize(actor, 'configs.list');
  let workspaceId: string | null = isOrganisationKey(actor) ? null : actor.workspaceId;
  if (args.workspaceId) {
    const ws = await findWorkspace(em, actor.organisationId, args.workspaceId);
    if (!ws) throw notFound('Workspace', 'workspace_id');
    assertVisible(actor, ws.id, 'Workspace', 'workspace_id');
    workspaceId = ws.id;
  }
  const rows = await em.find(
    ConfigSchema,
    { organisationId: actor.organisationId, deletedAt: null, ...(workspaceId ? { workspaceId } : {}) },
    { orderBy: { createdAt: 'asc', id: 'asc' } },
  );
  return rows.map(toConfigView);
}

/** GET /configs/{id or slug}: the item with its current version's body. */
export async function getConfig(em: EntityManager, actor: Actor, idOrSlug: string): Promise<ConfigDetailView> {
  authorize(actor, 'configs.read');
  const cfg = await findVisibleConfig(em, actor, idOrSlug);
  const version = cfg.currentVersionId ? await em.findOne(ConfigVersionSchema, { id: cfg.currentVersionId }) : null;
  return { ...toConfigView(cfg), config: version?.config ?? {} };
}

/** GET /configs/{id or slug}/versions: newest first. */
export async function listConfigVersions(em: EntityManager, actor: Actor, idOrSlug: string): Promise<Page<ConfigVersionView>> {
  authorize(actor, 'configs.read');
  const cfg = await findVisibleConfig(em, actor, idOrSlug);
  const versions = await em.find(ConfigVersionSchema, { configId: cfg.id }, { orderBy: { version: 'desc' } });
  return page(versions.map((v) => toConfigVersionView(cfg, v)), versions.length);
}
