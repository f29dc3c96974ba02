import type { EntityManager } from '@mikro-orm/postgresql';
import { forbidden, notFound } from '../../domain/errors.ts';
import { GuardrailSchema } from '../../persistence/entities/index.ts';
import { isOrganisationKey, type Actor } from '../auth/actor.ts';
import { assertVisible, authorize } from '../auth/authorize.ts';
import { pageWindow, type PageArgs } from '../paging.ts';
import { findWorkspace } from '../workspaces/find-workspace.ts';
import { findVisibleGuardrail, guardrailScope } from './find-guardrail.ts';
import { toGuardrailDetailView, toGuardrailView, type GuardrailDetailView, type GuardrailView } from './guardrail-view.ts';

/** `{data, total}`: the guardrail list's own envelope (control-plane-schemas 1.1, no `object`). */
export interface GuardrailPage {
  data: GuardrailView[];
  total: number;
}

export interface ListGuardrailsArgs extends PageArgs {
  workspaceId?: string | null;
  organisationId?: string | null;
}

/**
 * GET /guardrails: "for a workspace or organisation" (api-catalogue). With `workspace_id`, or a
 * workspace key, the workspace's guardrails; with an organisation key and no `workspace_id`, the
 * organisation guardrails. page_size 1–1000 (default 100), current_page ≥ 0.
 */
export async function listGuardrails(em: EntityManager, actor: Actor, args: ListGuardrailsArgs = {}): Promise<GuardrailPage> {
  const window = pageWindow(args, { defaultSize: 100, maxSize: 1000 });
  if (args.organisationId && args.organisationId !== actor.organisationId) throw notFound('Organisation', 'organisation_id');
  let workspaceId: string | null = isOrganisationKey(actor) ? null : actor.workspaceId;
  if (args.workspaceId) {
    const ws = await findWorkspace(em, actor.organisationId, args.workspaceId);
    if (!ws) throw notFound('Workspace', 'workspace_id');
    assertVisible(actor, ws.id, 'Workspace', 'workspace_id');
    workspaceId = ws.id;
  }
  authorize(actor, guardrailScope(workspaceId, 'list'), workspaceId ? { workspaceId } : undefined);
  if (!workspaceId && !isOrganisationKey(actor)) throw forbidden('Organisation guardrails need an organisation API key.', 'organisation_key_required');
  const [rows, total] = await em.findAndCount(
    GuardrailSchema,
    { organisationId: actor.organisationId, workspaceId, deletedAt: null },
    { orderBy: { createdAt: 'asc', id: 'asc' }, limit: window.limit, offset: window.offset },
  );
  return { data: rows.map(toGuardrailView), total };
}

/** GET /guardrails/{id or slug}: the item with checks and actions. */
export async function getGuardrail(em: EntityManager, actor: Actor, idOrSlug: string): Promise<GuardrailDetailView> {
  const g = await findVisibleGuardrail(em, actor, idOrSlug);
  authorize(actor, guardrailScope(g.workspaceId ?? null, 'read'), { workspaceId: g.workspaceId ?? null });
  return toGuardrailDetailView(g);
}
