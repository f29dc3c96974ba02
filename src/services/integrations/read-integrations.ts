import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidParameter, notFound } from '../../domain/errors.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import { IntegrationModelSchema, IntegrationSchema, IntegrationWorkspaceSchema, WorkspaceSchema } from '../../persistence/entities/index.ts';
import type { Integration } from '../../persistence/entities/integration.ts';
import type { IntegrationModel } from '../../persistence/entities/integration-model.ts';
import type { Actor } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { page, pageWindow, type Page, type PageArgs } from '../paging.ts';
import { findWorkspace } from '../workspaces/find-workspace.ts';
import { findIntegration } from './find-integration.ts';
import { toIntegrationDetailView, toIntegrationView, type IntegrationDetailView, type IntegrationView } from './integration-view.ts';
import { workspaceAccess, type WorkspaceAccess } from './workspace-access.ts';

export const INTEGRATION_TYPES = ['workspace', 'organisation', 'all'] as const;

export interface ListIntegrationsArgs extends PageArgs {
  /** Only what this workspace may use: its own integrations and the organisation's shared with it. */
  workspaceId?: string | null;
  /** `workspace` (workspace-scoped), `organisation` (organisation-level) or `all` (default). */
  type?: string | null;
}

/** GET /integrations and GET /admin/v2/integrations: `{object, total, data}`, oldest first. */
export async function listIntegrations(em: EntityManager, actor: Actor, args: ListIntegrationsArgs): Promise<Page<IntegrationView>> {
  authorize(actor, 'integrations.list');
  const window = pageWindow(args, { defaultSize: 100 });
  const type = args.type ?? 'all';
  if (!(INTEGRATION_TYPES as readonly string[]).includes(type)) throw invalidParameter('type', 'type must be workspace, organisation or all');
  const where: Record<string, unknown>[] = [{ organisationId: actor.organisationId }];
  if (type === 'workspace') where.push({ workspaceId: { $ne: null } });
  if (type === 'organisation') where.push({ workspaceId: null });
  if (args.workspaceId) {
    const ws = await findWorkspace(em, actor.organisationId, args.workspaceId);
    if (!ws) throw notFound('Workspace', 'workspace_id');
    // Its own integrations, the organisation's shared with it explicitly, and those shared with
    // every workspace unless it was switched off explicitly.
    const usable = await em.getConnection().execute<{ id: string }[]>(
      `select i.id from integration i
         left join integration_workspace iw on iw.integration_id = i.id and iw.workspace_id = ?
        where i.organisation_id = ?
          and (i.workspace_id = ?
               or (i.workspace_id is null and coalesce(iw.enabled, coalesce((i.global_workspace_access->>'enabled')::boolean, false))))`,
      [ws.id, actor.organisationId, ws.id],
    );
    where.push({ id: { $in: usable.map((r) => r.id) } });
  }
  const [rows, total] = await em.findAndCount(IntegrationSchema, { $and: where }, { orderBy: { createdAt: 'asc', id: 'asc' }, limit: window.limit, offset: window.offset });
  return page(rows.map(toIntegrationView), total);
}

/** How many workspaces may use it. */
async function workspaceCount(em: EntityManager, i: Integration): Promise<number> {
  if (i.workspaceId) return 1;
  if ((i.globalWorkspaceAccess as { enabled?: boolean } | null)?.enabled) {
    const all = await em.count(WorkspaceSchema, { organisationId: i.organisationId });
    return all - (await em.count(IntegrationWorkspaceSchema, { integrationId: i.id, enabled: false }));
  }
  return em.count(IntegrationWorkspaceSchema, { integrationId: i.id, enabled: true });
}

/** GET /integrations/{slug}: secrets masked. */
export async function getIntegration(em: EntityManager, box: SecretBox, actor: Actor, idOrSlug: string): Promise<IntegrationDetailView> {
  authorize(actor, 'integrations.read');
  const i = await findIntegration(em, actor.organisationId, idOrSlug);
  return toIntegrationDetailView(box, i, await workspaceCount(em, i));
}

export interface IntegrationModelView {
  slug: string;
  name: string | null;
  enabled: boolean;
  is_custom: boolean;
  is_finetune: boolean;
  base_model_slug: string | null;
  configurations: { custom_host: string | null };
  custom_headers: Record<string, string> | null;
  pricing_config: Record<string, unknown> | null;
}

export const toIntegrationModelView = (m: IntegrationModel): IntegrationModelView => ({
  slug: m.slug,
  name: m.name ?? null,
  enabled: m.enabled,
  is_custom: m.isCustom,
  is_finetune: m.isFinetune,
  base_model_slug: m.baseModelSlug ?? null,
  configurations: { custom_host: m.customHost ?? null },
  custom_headers: m.customHeaders ?? null,
  pricing_config: m.pricingConfig ?? null,
});

/** GET /integrations/{slug}/models → `{total, models, allow_all_models}`. */
export async function listIntegrationModels(em: EntityManager, actor: Actor, idOrSlug: string): Promise<{ total: number; models: IntegrationModelView[]; allow_all_models: boolean }> {
  authorize(actor, 'integrations.read');
  const i = await findIntegration(em, actor.organisationId, idOrSlug);
  const rows = await em.find(IntegrationModelSchema, { integrationId: i.id }, { orderBy: { slug: 'asc' } });
  return { total: rows.length, models: rows.map(toIntegrationModelView), allow_all_models: i.allowAllModels };
}

export interface IntegrationWorkspaceView extends WorkspaceAccess {
  id: string;
  slug: string;
}

/**
 * GET /integrations/{slug}/workspaces → `{total, workspaces}`: every workspace of the
 * organisation (a workspace-scoped integration: its one workspace), with its effective access.
 */
export async function listIntegrationWorkspaces(em: EntityManager, actor: Actor, idOrSlug: string): Promise<{ total: number; workspaces: IntegrationWorkspaceView[]; global_workspace_access: Record<string, unknown> | null }> {
  authorize(actor, 'integrations.read');
  const i = await findIntegration(em, actor.organisationId, idOrSlug);
  const workspaces = await em.find(WorkspaceSchema, i.workspaceId ? { id: i.workspaceId } : { organisationId: actor.organisationId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  const out: IntegrationWorkspaceView[] = [];
  for (const ws of workspaces) out.push({ id: ws.id, slug: ws.slug, ...(await workspaceAccess(em, i, ws.id)) });
  return { total: out.length, workspaces: out, global_workspace_access: i.globalWorkspaceAccess ?? null };
}
