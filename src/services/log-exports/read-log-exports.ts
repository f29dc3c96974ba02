// GET /logs/exports (list, `workspace_id` filter only, no paging: control-plane-schemas 1.1),
// GET /logs/exports/{id}, and the field restrictions (gateway-spec: GET
// /v1/logs/exports/field-restrictions?workspace_id= "returns effective denied fields").
import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidParameter, notFound } from '../../domain/errors.ts';
import type { LogExportField } from '../../domain/log-fields.ts';
import { LogExportSchema } from '../../persistence/entities/index.ts';
import { isOrganisationKey, type Actor } from '../auth/actor.ts';
import { assertVisible, authorize } from '../auth/authorize.ts';
import { page, type Page } from '../paging.ts';
import { effectiveDeniedFields, storedRestrictions } from '../request-logs/field-restrictions.ts';
import { findWorkspace } from '../workspaces/find-workspace.ts';
import { findLogExport } from './find-log-export.ts';
import { toLogExportView, type LogExportView } from './log-export-view.ts';

async function visibleWorkspace(em: EntityManager, actor: Actor, idOrSlug: string): Promise<{ id: string; slug: string }> {
  const ws = await findWorkspace(em, actor.organisationId, idOrSlug);
  if (!ws) throw notFound('Workspace', 'workspace_id');
  assertVisible(actor, ws.id, 'Workspace', 'workspace_id');
  return ws;
}

export async function listLogExports(em: EntityManager, actor: Actor, args: { workspaceId?: string | null } = {}): Promise<Page<LogExportView>> {
  authorize(actor, 'logs.export');
  let workspaceId: string | null = isOrganisationKey(actor) ? null : actor.workspaceId;
  if (args.workspaceId) workspaceId = (await visibleWorkspace(em, actor, args.workspaceId)).id;
  const rows = await em.find(
    LogExportSchema,
    { organisationId: actor.organisationId, archivedAt: null, ...(workspaceId ? { workspaceId } : {}) },
    { orderBy: { createdAt: 'desc', id: 'desc' } },
  );
  return page(rows.map(toLogExportView), rows.length);
}

export async function getLogExport(em: EntityManager, actor: Actor, id: string): Promise<LogExportView> {
  authorize(actor, 'logs.export');
  return toLogExportView(await findLogExport(em, actor, id));
}

export interface FieldRestrictions {
  object: 'field-restrictions';
  workspace_id: string;
  /** Effective: the organisation's ∪ the workspace's. */
  denied_fields: LogExportField[];
  organisation_denied_fields: LogExportField[];
  workspace_denied_fields: LogExportField[];
}

/** Workspace keys: their own workspace (a `workspace_id` naming another is 404); organisation keys must name one. */
export async function getFieldRestrictions(em: EntityManager, actor: Actor, workspace: string | null | undefined): Promise<FieldRestrictions> {
  authorize(actor, 'logs.export');
  let workspaceId: string;
  if (workspace) workspaceId = (await visibleWorkspace(em, actor, workspace)).id;
  else if (!isOrganisationKey(actor) && actor.workspaceId) workspaceId = actor.workspaceId;
  else throw invalidParameter('workspace_id', 'workspace_id: required for organisation API keys');
  const stored = await storedRestrictions(em, actor.organisationId, workspaceId);
  return {
    object: 'field-restrictions',
    workspace_id: workspaceId,
    denied_fields: await effectiveDeniedFields(em, actor.organisationId, workspaceId),
    organisation_denied_fields: stored.organisation ?? [],
    workspace_denied_fields: stored.workspace ?? [],
  };
}
