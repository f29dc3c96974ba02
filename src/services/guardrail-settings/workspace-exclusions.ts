import type { EntityManager } from '@mikro-orm/postgresql';
import { forbidden, invalidParameter, notFound } from '../../domain/errors.ts';
import { parseWith } from '../../domain/validation.ts';
import { GuardrailWorkspaceExclusionSchema, WorkspaceSchema } from '../../persistence/entities/index.ts';
import { isOrganisationKey, type Actor, type RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { pageWindow, page, type Page, type PageArgs } from '../paging.ts';
import { findWorkspace } from '../workspaces/find-workspace.ts';
import { workspaceExclusionsSchema } from './guardrail-settings-input.ts';

// Workspaces excluded from the organisation's default input or output guardrails
// (GET/PUT /v1/workspace-exclusions/{input,output}-guardrails; scopes organisation_exclusions.*,
// spec Authentication 4; organisation keys only).

export type Direction = 'input' | 'output';

export interface WorkspaceExclusionView {
  workspace_id: string;
  workspace_slug: string;
  workspace_name: string;
  excluded: true;
  created_at: string;
  created_by: string | null;
}

function requireOrganisationKey(actor: Actor): void {
  if (!isOrganisationKey(actor)) throw forbidden('Workspace exclusions need an organisation API key.', 'organisation_key_required');
}

async function listPage(em: EntityManager, organisationId: string, direction: Direction, args: PageArgs): Promise<Page<WorkspaceExclusionView>> {
  const window = pageWindow(args, { defaultSize: 100, maxSize: 1000 });
  const conn = em; // em.execute runs in the caller's transaction
  const rows = await conn.execute<{ workspace_id: string; slug: string; name: string; created_at: Date; created_by: string | null }[]>(
    `select e.workspace_id, w.slug, w.name, e.created_at, e.created_by from guardrail_workspace_exclusion e join workspace w on w.id = e.workspace_id
      where e.organisation_id = ? and e.direction = ? order by w.slug limit ? offset ?`,
    [organisationId, direction, window.limit, window.offset],
  );
  const total = await em.count(GuardrailWorkspaceExclusionSchema, { organisationId, direction });
  return page(
    rows.map((r) => ({ workspace_id: r.workspace_id, workspace_slug: r.slug, workspace_name: r.name, excluded: true as const, created_at: new Date(r.created_at).toISOString(), created_by: r.created_by })),
    total,
  );
}

/** GET: the excluded workspaces of one direction, by slug. */
export async function listWorkspaceExclusions(em: EntityManager, actor: Actor, direction: Direction, args: PageArgs = {}): Promise<Page<WorkspaceExclusionView>> {
  authorize(actor, 'organisation_exclusions.list');
  requireOrganisationKey(actor);
  return listPage(em, actor.organisationId, direction, args);
}

/** PUT: merge (default) or replace (`override_existing`) the excluded set; answers the first page of the result. */
export async function updateWorkspaceExclusions(em: EntityManager, actor: Actor, meta: RequestMeta, direction: Direction, input: unknown): Promise<Page<WorkspaceExclusionView>> {
  authorize(actor, 'organisation_exclusions.update');
  requireOrganisationKey(actor);
  const body = parseWith(workspaceExclusionsSchema, input);
  const wanted = new Map<string, boolean>();
  for (const [i, entry] of body.workspaces.entries()) {
    const param = `workspaces[${i}].workspace_id`;
    const ws = await findWorkspace(em, actor.organisationId, entry.workspace_id);
    if (!ws) throw notFound('Workspace', param);
    if (wanted.has(ws.id)) throw invalidParameter(param, `${param}: ${entry.workspace_id} is listed twice`);
    wanted.set(ws.id, entry.excluded ?? true);
  }
  return em.transactional(async (tx) => {
    const current = new Set((await tx.find(GuardrailWorkspaceExclusionSchema, { organisationId: actor.organisationId, direction })).map((e) => e.workspaceId));
    const exclude = [...wanted].filter(([id, ex]) => ex && !current.has(id)).map(([id]) => id);
    const restore = body.override_existing
      ? [...current].filter((id) => wanted.get(id) !== true)
      : [...wanted].filter(([id, ex]) => !ex && current.has(id)).map(([id]) => id);
    if (restore.length) await tx.nativeDelete(GuardrailWorkspaceExclusionSchema, { organisationId: actor.organisationId, direction, workspaceId: { $in: restore } });
    for (const workspaceId of exclude) {
      tx.create(GuardrailWorkspaceExclusionSchema, { workspaceId, direction, organisationId: actor.organisationId, createdBy: actor.userId ?? actor.keyId });
    }
    const slugs = async (ids: string[]) => (ids.length ? (await tx.find(WorkspaceSchema, { id: { $in: ids } }, { orderBy: { slug: 'asc' } })).map((w) => w.slug) : []);
    recordAudit(tx, actor, meta, {
      action: `workspace_exclusions.${direction}_guardrails.update`,
      targetType: 'organisation',
      targetId: actor.organisationId,
      details: { direction, override_existing: body.override_existing ?? false, excluded: await slugs(exclude), restored: await slugs(restore) },
    });
    await tx.flush();
    return listPage(tx, actor.organisationId, direction, {});
  });
}
