import type { ApiKeyType } from '../../domain/api-key.ts';
import { forbidden } from '../../domain/errors.ts';
import { hasScope } from '../../domain/scopes.ts';
import { isOrganisationKey, type Actor } from '../auth/actor.ts';

const SCOPE_PREFIX: Record<ApiKeyType, string> = {
  'organisation-service': 'organisation_service_api_keys',
  'workspace-service': 'workspace_service_api_keys',
  'workspace-user': 'workspace_user_api_keys',
};

/** Admin keys manage every key of their organisation; workspace keys only their workspace's keys. */
export function assertMayManage(actor: Actor, action: 'create' | 'read' | 'list' | 'update' | 'delete', type: ApiKeyType, workspaceId: string | null): void {
  const scope = `${SCOPE_PREFIX[type]}.${action}`;
  if (!isOrganisationKey(actor)) {
    if (type === 'organisation-service') throw forbidden('Workspace API keys cannot manage organisation keys.');
    if (workspaceId !== actor.workspaceId) throw forbidden('Workspace API keys can only manage keys of their own workspace.');
  }
  if (!hasScope(actor.scopes, scope)) throw forbidden(`The API key lacks the ${scope} scope.`, 'missing_scope');
}

/** Listing keys needs some list permission; what is listed is narrowed by the caller's reach. */
export function listableTypes(actor: Actor): ApiKeyType[] {
  const types = (Object.keys(SCOPE_PREFIX) as ApiKeyType[]).filter((t) => hasScope(actor.scopes, `${SCOPE_PREFIX[t]}.list`));
  return isOrganisationKey(actor) ? types : types.filter((t) => t !== 'organisation-service');
}
