import { z } from 'zod';

// Request bodies of /deployments (control-plane-schemas 2.19, draft branch; gateway-spec
// "Policies, guardrails, configs, deployments": `tags` key-value pairs and `source_type`).

const httpUrl = z.string().max(2048).refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), 'must be an http or https URL').transform((v) => v.replace(/\/+$/, ''));

/** Key-value pairs: at most 50, keys 1–64 of `[A-Za-z0-9_.:/-]`, values strings up to 256. */
export const tagsSchema = z
  .record(z.string().min(1).max(64).regex(/^[A-Za-z0-9_.:/-]+$/, 'tag keys must match ^[A-Za-z0-9_.:/-]+$'), z.string().max(256))
  .refine((t) => Object.keys(t).length <= 50, 'at most 50 tags');

const authSettingsFields = {
  gateway_base_url: httpUrl.nullable().optional(),
  mcp_gateway_base_url: httpUrl.nullable().optional(),
  private_link_endpoint: httpUrl.nullable().optional(),
  is_dataservice_hosted: z.string().max(64).nullable().optional(),
  is_playground_proxy_allowed: z.string().max(64).nullable().optional(),
  disable_gateway: z.string().max(64).nullable().optional(),
  use_private_link_proxy: z.string().max(64).nullable().optional(),
  jwt_sub_workspace_mapping: z.record(z.string(), z.unknown()).nullable().optional(),
  jwt_subs_allowed: z.array(z.string().min(1).max(255)).optional(),
  /** Workspace ids or slugs (kept as ids). */
  workspaces_allowed: z.array(z.string().min(1).max(255)).optional(),
};

const credentials = z.strictObject({ username: z.string().min(1).max(255), password: z.string().min(1).max(1024) });

export const createDeploymentSchema = z.strictObject({
  name: z.string().trim().min(1).max(255),
  organisation_id: z.string().uuid().optional(),
  slug: z.string().min(1).max(50).regex(/^[a-zA-Z0-9_-]+$/, 'must match ^[a-zA-Z0-9_-]+$').optional(),
  type: z.enum(['production', 'non_production']).optional(),
  source_type: z.string().min(1).max(64).regex(/^[a-zA-Z0-9_.-]+$/, 'must match ^[a-zA-Z0-9_.-]+$').nullable().optional(),
  tags: tagsSchema.optional(),
  deployment_config: z.record(z.string(), z.unknown()).optional(),
  auth_settings: z.strictObject(authSettingsFields).optional(),
  is_default: z.boolean().optional(),
  credentials: credentials.optional(),
});
export type CreateDeploymentInput = z.output<typeof createDeploymentSchema>;

export const updateDeploymentSchema = z.strictObject({
  name: z.string().trim().min(1).max(255).optional(),
  type: z.enum(['production', 'non_production']).optional(),
  status: z.enum(['active', 'inactive']).optional(),
  source_type: z.string().min(1).max(64).regex(/^[a-zA-Z0-9_.-]+$/, 'must match ^[a-zA-Z0-9_.-]+$').nullable().optional(),
  tags: tagsSchema.optional(),
  deployment_config: z.record(z.string(), z.unknown()).optional(),
  auth_settings: z
    .strictObject({
      ...authSettingsFields,
      allow_all_workspaces: z.boolean().optional(),
      remove_workspaces_allowed: z.array(z.string().min(1).max(255)).optional(),
      remove_subs_allowed: z.array(z.string().min(1).max(255)).optional(),
    })
    .optional(),
  is_default: z.boolean().optional(),
  credentials: credentials.optional(),
  ch_db: z.string().max(255).nullable().optional(),
  /** New generated credentials password, shown once in the answer. */
  rotate_auth: z.boolean().optional(),
  /** Lists in auth_settings replace instead of being merged into the stored ones. */
  override_existing: z.boolean().optional(),
});
export type UpdateDeploymentInput = z.output<typeof updateDeploymentSchema>;
