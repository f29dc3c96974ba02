import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidParameter, notFound } from '../../domain/errors.ts';
import { isOrganisationKey, type Actor } from '../auth/actor.ts';
import { assertVisible } from '../auth/authorize.ts';
import { findWorkspace } from '../workspaces/find-workspace.ts';

/**
 * The workspace a new policy belongs to (control-plane-schemas 0 and 2.11): the named one (id or
 * slug; required for organisation keys), or a workspace key's own. `organisation_id`, when sent,
 * must be the key's organisation.
 */
export async function policyWorkspace(em: EntityManager, actor: Actor, body: { workspace_id?: string | undefined; organisation_id?: string | undefined }): Promise<string> {
  if (body.organisation_id !== undefined && body.organisation_id !== actor.organisationId) {
    throw invalidParameter('organisation_id', 'organisation_id: not the organisation of this API key');
  }
  if (body.workspace_id) {
    const ws = await findWorkspace(em, actor.organisationId, body.workspace_id);
    if (!ws) throw notFound('Workspace', 'workspace_id');
    return ws.id;
  }
  if (!isOrganisationKey(actor) && actor.workspaceId) return actor.workspaceId;
  throw invalidParameter('workspace_id', 'workspace_id: required for organisation API keys');
}

/** A list's `workspace_id` filter resolved to an id (404 outside the caller's reach), or the workspace key's own. */
export async function listWorkspace(em: EntityManager, actor: Actor, workspaceId: string | null | undefined): Promise<string | null> {
  if (!workspaceId) return isOrganisationKey(actor) ? null : actor.workspaceId;
  const ws = await findWorkspace(em, actor.organisationId, workspaceId);
  if (!ws) throw notFound('Workspace', 'workspace_id');
  assertVisible(actor, ws.id, 'Workspace', 'workspace_id');
  return ws.id;
}

export const editorOf = (actor: Actor): string => actor.userId ?? actor.keyId;
