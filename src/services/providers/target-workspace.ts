import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidParameter, notFound } from '../../domain/errors.ts';
import { isOrganisationKey, type Actor } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { findWorkspace } from '../workspaces/find-workspace.ts';

/**
 * The workspace a create acts in: named by `workspace_id` (required with organisation keys),
 * else a workspace key's own (control-plane-schemas 0: "not required when using workspace API
 * keys, required when using organisation admin keys"). Authorizes `scope` there.
 */
export async function targetWorkspace(em: EntityManager, actor: Actor, scope: string, workspaceIdOrSlug: string | null | undefined): Promise<string> {
  let workspaceId: string;
  if (workspaceIdOrSlug) {
    const ws = await findWorkspace(em, actor.organisationId, workspaceIdOrSlug);
    if (!ws) throw notFound('Workspace', 'workspace_id');
    workspaceId = ws.id;
  } else if (!isOrganisationKey(actor) && actor.workspaceId) {
    workspaceId = actor.workspaceId;
  } else {
    throw invalidParameter('workspace_id', 'workspace_id: required for organisation API keys');
  }
  authorize(actor, scope, { workspaceId });
  return workspaceId;
}

/** The workspace a list is limited to: a workspace key's own, or the one an organisation key names (or none). */
export async function listWorkspace(em: EntityManager, actor: Actor, workspaceIdOrSlug: string | null | undefined): Promise<string | null> {
  if (!isOrganisationKey(actor)) return actor.workspaceId;
  if (!workspaceIdOrSlug) return null;
  const ws = await findWorkspace(em, actor.organisationId, workspaceIdOrSlug);
  if (!ws) throw notFound('Workspace', 'workspace_id');
  return ws.id;
}
