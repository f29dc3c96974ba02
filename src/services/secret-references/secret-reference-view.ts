import type { SecretReference } from '../../persistence/entities/secret-reference.ts';
import { SENSITIVE_AUTH_FIELDS } from './secret-reference-input.ts';

export const SECRET_REFERENCE_OBJECT = 'secret-reference';

/** A list item (control-plane-schemas 2.17). */
export interface SecretReferenceItemView {
  id: string;
  name: string;
  slug: string;
  manager_type: string;
  status: string;
  created_at: string;
  last_updated_at: string;
  object: typeof SECRET_REFERENCE_OBJECT;
}

/** The detail object; `auth_config` with credentials masked. */
export interface SecretReferenceView extends SecretReferenceItemView {
  organisation_id: string;
  description: string | null;
  secret_path: string;
  secret_key: string | null;
  allow_all_workspaces: boolean;
  allowed_workspaces: string[];
  tags: Record<string, string> | null;
  created_by: string | null;
  auth_config: Record<string, unknown>;
}

/** `abcd********wxyz` for long values, all stars for short ones: enough to recognise, never to use. */
export function maskValue(v: string): string {
  return v.length >= 16 ? `${v.slice(0, 4)}********${v.slice(-4)}` : '********';
}

export function maskAuthConfig(auth: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(auth).map(([k, v]) => [k, SENSITIVE_AUTH_FIELDS.has(k) && typeof v === 'string' ? maskValue(v) : v]));
}

export function toSecretReferenceItemView(r: SecretReference): SecretReferenceItemView {
  return {
    id: r.id,
    name: r.name,
    slug: r.slug,
    manager_type: r.managerType,
    status: r.status,
    created_at: r.createdAt.toISOString(),
    last_updated_at: r.updatedAt.toISOString(),
    object: SECRET_REFERENCE_OBJECT,
  };
}

export function toSecretReferenceView(r: SecretReference, authConfig: Record<string, unknown>): SecretReferenceView {
  return {
    ...toSecretReferenceItemView(r),
    organisation_id: r.organisationId,
    description: r.description ?? null,
    secret_path: r.secretPath,
    secret_key: r.secretKey ?? null,
    allow_all_workspaces: r.allowAllWorkspaces,
    allowed_workspaces: r.allowedWorkspaces,
    tags: r.tags ?? null,
    created_by: r.createdBy ?? null,
    auth_config: maskAuthConfig(authConfig),
  };
}
