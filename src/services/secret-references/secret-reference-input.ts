import { z } from 'zod';

// Request bodies of /secret-references (control-plane-schemas 2.17). `auth_config` is checked
// against the manager type (authConfigSchema) once the type is known.

/**
 * The managers of the spec, plus two this gateway resolves by itself with no network: `env` (the
 * secret is an environment variable of the control plane; `secret_path` names it) and `file` (a
 * file under the configured secrets directory; `secret_path` is relative to it). Both take an empty
 * `auth_config`.
 */
export const MANAGER_TYPES = ['aws_sm', 'azure_kv', 'hashicorp_vault', 'env', 'file'] as const;
export type ManagerType = (typeof MANAGER_TYPES)[number];

const s = (max = 1024) => z.string().trim().min(1).max(max);
const url = z.url({ protocol: /^https?$/ });

const AWS = z.discriminatedUnion('aws_auth_type', [
  z.strictObject({ aws_auth_type: z.literal('accessKey'), aws_access_key_id: s(), aws_secret_access_key: s(), aws_region: s(64) }),
  z.strictObject({ aws_auth_type: z.literal('assumedRole'), aws_role_arn: s(), aws_external_id: s().nullable().optional(), aws_region: s(64) }),
  z.strictObject({ aws_auth_type: z.literal('serviceRole'), aws_region: s(64).nullable().optional() }),
]);

const AZURE = z.discriminatedUnion('azure_auth_mode', [
  z.strictObject({ azure_auth_mode: z.literal('entra'), azure_entra_tenant_id: s(), azure_entra_client_id: s(), azure_entra_client_secret: s(), azure_vault_url: url }),
  z.strictObject({ azure_auth_mode: z.literal('managed'), azure_managed_client_id: s().nullable().optional(), azure_vault_url: url }),
  z.strictObject({ azure_auth_mode: z.literal('default'), azure_vault_url: url }),
]);

const VAULT = z.discriminatedUnion('vault_auth_type', [
  z.strictObject({ vault_auth_type: z.literal('token'), vault_addr: url, vault_token: s(), vault_namespace: s().nullable().optional() }),
  z.strictObject({ vault_auth_type: z.literal('approle'), vault_addr: url, vault_role_id: s(), vault_secret_id: s(), vault_namespace: s().nullable().optional() }),
  z.strictObject({ vault_auth_type: z.literal('kubernetes'), vault_addr: url, vault_role: s(), vault_namespace: s().nullable().optional() }),
]);

const NONE = z.strictObject({});

export function authConfigSchema(type: ManagerType): z.ZodType<Record<string, unknown>> {
  switch (type) {
    case 'aws_sm':
      return AWS;
    case 'azure_kv':
      return AZURE;
    case 'hashicorp_vault':
      return VAULT;
    default:
      return NONE;
  }
}

/** The field choosing the auth variant: changing it replaces auth_config instead of merging into it. */
export const AUTH_DISCRIMINATOR: Record<ManagerType, string | null> = {
  aws_sm: 'aws_auth_type',
  azure_kv: 'azure_auth_mode',
  hashicorp_vault: 'vault_auth_type',
  env: null,
  file: null,
};

/** Fields of auth_config that are credentials: masked in every answer, never audited. */
export const SENSITIVE_AUTH_FIELDS = new Set(['aws_access_key_id', 'aws_secret_access_key', 'azure_entra_client_secret', 'vault_token', 'vault_secret_id', 'vault_role_id']);

export const SLUG = /^[a-zA-Z0-9_-]+$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `secret_path` per manager: an environment variable name, or a relative path that stays inside the secrets directory. */
export function secretPathIssue(type: ManagerType, path: string): string | null {
  if (type === 'env' && !ENV_NAME.test(path)) return 'must be an environment variable name';
  if (type === 'file' && (path.startsWith('/') || path.startsWith('\\') || /^[A-Za-z]:/.test(path) || path.split(/[\\/]/).includes('..'))) {
    return 'must be a path relative to the secrets directory, without ..';
  }
  return null;
}

const tags = z.record(z.string().min(1).max(255), z.string().max(1024)).nullable().optional();

export const createSecretReferenceSchema = z.strictObject({
  name: s(255),
  manager_type: z.enum(MANAGER_TYPES),
  auth_config: z.record(z.string(), z.unknown()),
  secret_path: s(1024),
  secret_key: s(255).nullable().optional(),
  slug: z.string().min(1).max(255).regex(SLUG, 'must match ^[a-zA-Z0-9_-]+$').optional(),
  description: z.string().max(1024).nullable().optional(),
  organisation_id: z.uuid().optional(),
  allow_all_workspaces: z.boolean().optional(),
  allowed_workspaces: z.array(z.string().min(1)).min(1).max(1000).optional(),
  tags,
});
export type CreateSecretReferenceInput = z.output<typeof createSecretReferenceSchema>;

export const updateSecretReferenceSchema = z.strictObject({
  name: s(255).optional(),
  slug: z.string().min(1).max(255).regex(SLUG, 'must match ^[a-zA-Z0-9_-]+$').optional(),
  description: z.string().max(1024).nullable().optional(),
  auth_config: z.record(z.string(), z.unknown()).optional(),
  secret_path: s(1024).optional(),
  secret_key: s(255).nullable().optional(),
  allow_all_workspaces: z.boolean().optional(),
  allowed_workspaces: z.array(z.string().min(1)).min(1).max(1000).optional(),
  tags,
});
export type UpdateSecretReferenceInput = z.output<typeof updateSecretReferenceSchema>;
