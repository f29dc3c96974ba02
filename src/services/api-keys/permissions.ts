import type { ApiKeyType } from '../../domain/api-key.ts';
import { forbidden } from '../../domain/errors.ts';
import { hasScope } from '../../domain/scopes.ts';
import { isOrganisationKey, type Actor } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';

const SCOPE_PREFIX: Record<ApiKeyType, string> = {
  'organisation-service': 'organisation_service_api_keys',
  'organisation-user': 'organisation_user_api_keys',
  'workspace-service': 'workspace_service_api_keys',
  'workspace-user': 'workspace_user_api_keys',
};

export const keyScope = (type: ApiKeyType, action: string): string => `${SCOPE_PREFIX[type]}.${action}`;

/** Admin keys manage every key of their organisation; workspace keys only their workspace's keys. */
export function assertMayManage(actor: Actor, action: 'create' | 'read' | 'list' | 'update' | 'delete', type: ApiKeyType, workspaceId: string | null): void {
  if (!isOrganisationKey(actor) && (type === 'organisation-service' || type === 'organisation-user')) {
    throw forbidden('Workspace API keys cannot manage organisation keys.');
  }
  authorize(actor, keyScope(type, action), { workspaceId });
}

/** Listing keys needs some list permission; what is listed is narrowed by the caller's reach. */
export function listableTypes(actor: Actor): ApiKeyType[] {
  const types = (Object.keys(SCOPE_PREFIX) as ApiKeyType[]).filter((t) => hasScope(actor.scopes, keyScope(t, 'list')));
  return isOrganisationKey(actor) ? types : types.filter((t) => t === 'workspace-service' || t === 'workspace-user');
}
