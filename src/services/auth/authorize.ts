import { forbidden, notFound } from '../../domain/errors.ts';
import { hasScope, WORKSPACE_ONLY_SCOPES } from '../../domain/scopes.ts';
import { isOrganisationKey, type Actor } from './actor.ts';

/**
 * The one permission check of the control plane (spec, Authentication 3): the actor needs the
 * scope; workspace keys reach only their own workspace; workspace-only operations (feedback)
 * refuse organisation keys.
 */
export function authorize(actor: Actor, scope: string, target?: { workspaceId?: string | null }): void {
  if (WORKSPACE_ONLY_SCOPES.includes(scope) && isOrganisationKey(actor)) {
    throw forbidden(`${scope} needs a workspace API key.`, 'workspace_key_required');
  }
  if (!hasScope(actor.scopes, scope)) throw forbidden(`The API key lacks the ${scope} scope.`, 'missing_scope');
  if (target && target.workspaceId !== undefined && !isOrganisationKey(actor) && target.workspaceId !== actor.workspaceId) {
    throw forbidden('Workspace API keys reach only their own workspace.', 'other_workspace');
  }
}

/** For reads: something in another workspace is simply not there for a workspace key. */
export function assertVisible(actor: Actor, workspaceId: string | null, what: string, param: string | null = 'id'): void {
  if (!isOrganisationKey(actor) && workspaceId !== actor.workspaceId) throw notFound(what, param);
}

/** The workspace a workspace key acts in, or the one an organisation key names. */
export function workspaceScopeOf(actor: Actor): string | null {
  return isOrganisationKey(actor) ? null : actor.workspaceId;
}

/**
 * What a key may give to the keys it creates: its own scopes and, for organisation keys (which
 * manage every workspace), the workspace-only operations they cannot use themselves.
 */
export function grantableScopes(actor: Actor): string[] {
  return isOrganisationKey(actor) ? [...new Set([...actor.scopes, ...WORKSPACE_ONLY_SCOPES])] : actor.scopes;
}
