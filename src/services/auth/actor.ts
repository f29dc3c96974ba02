import { isOrganisationLevel, type ApiKeyType } from '../../domain/api-key.ts';
import type { OrganisationRole, WorkspaceRole } from '../../domain/roles.ts';

/** Who is calling the control plane, and from where (recorded in the audit log). */
export interface Actor {
  kind: 'api_key';
  keyId: string;
  keyType: ApiKeyType;
  organisationId: string;
  /** The one workspace a workspace key reaches; null for organisation keys. */
  workspaceId: string | null;
  /** The person a user key belongs to. */
  userId: string | null;
  orgRole: OrganisationRole | null;
  workspaceRole: WorkspaceRole | null;
  /** Effective scopes: the key's, bounded by its user's role for user keys. */
  scopes: string[];
}

export interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
  requestId: string;
  method?: string | null;
  uri?: string | null;
}

export const isOrganisationKey = (a: Actor): boolean => isOrganisationLevel(a.keyType);
