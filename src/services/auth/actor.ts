import type { ApiKeyType } from '../../domain/api-key.ts';

/** Who is calling the control plane, and from where (recorded in the audit log). */
export interface Actor {
  kind: 'api_key';
  keyId: string;
  keyType: ApiKeyType;
  organisationId: string;
  workspaceId: string | null;
  userId: string | null;
  scopes: string[];
}

export interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
  requestId: string;
}

export const isOrganisationKey = (a: Actor): boolean => a.keyType === 'organisation-service';
