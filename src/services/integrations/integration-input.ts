import { z } from 'zod';
import { customHostSchema } from '../../domain/config/config-schema.ts';
import {
  nameSchema,
  pricingAdjustmentsSchema,
  pricingConfigSchema,
  rateLimitSchema,
  secretMappingSchema,
  slugSchema,
  usageLimitsSchema,
} from '../../domain/integrations/shared-schemas.ts';

// Request bodies of /integrations and its models and workspaces (control-plane-schemas 2.4).
// `configurations` is checked against the provider's variant separately (naming `configurations.<field>`).

const integrationSecretMappings = secretMappingSchema(/^(key|configurations\.[a-z0-9_]+)$/, '`key` or `configurations.<field>`');

export const createIntegrationSchema = z.strictObject({
  name: nameSchema,
  ai_provider_id: z.string().min(1).max(64).regex(/^[a-z0-9][a-z0-9._-]*$/, 'a provider id such as `openai`'),
  slug: slugSchema.optional(),
  key: z.string().min(1).max(8192).optional(),
  description: z.string().max(2048).nullish(),
  workspace_id: z.string().min(1).max(255).optional(),
  configurations: z.record(z.string(), z.unknown()).optional(),
  create_default_provider: z.boolean().optional(),
  default_provider_slug: slugSchema.optional(),
  secret_mappings: integrationSecretMappings.nullish(),
  pricing_adjustments: pricingAdjustmentsSchema.nullish(),
});
export type CreateIntegrationInput = z.output<typeof createIntegrationSchema>;

export const updateIntegrationSchema = z.strictObject({
  name: nameSchema.optional(),
  /** A new key (rotation); null removes it. */
  key: z.string().min(1).max(8192).nullish(),
  description: z.string().max(2048).nullish(),
  /** Merged over the stored configuration: given fields replace, `null` removes one. */
  configurations: z.record(z.string(), z.unknown()).optional(),
  secret_mappings: integrationSecretMappings.nullish(),
  pricing_adjustments: pricingAdjustmentsSchema.nullish(),
});
export type UpdateIntegrationInput = z.output<typeof updateIntegrationSchema>;

const customHeaders = z.record(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'a header name'), z.string().max(8192));

export const integrationModelSchema = z.strictObject({
  slug: z.string().min(1).max(255),
  enabled: z.boolean(),
  name: z.string().max(255).nullish(),
  is_custom: z.boolean().nullish(),
  is_finetune: z.boolean().nullish(),
  base_model_slug: z.string().max(255).nullish(),
  configurations: z
    .strictObject({ custom_host: customHostSchema.pipe(z.string().max(2048)).nullish(), custom_headers: customHeaders.nullish() })
    .nullish(),
  /** Per-model headers sent upstream (gateway-spec: PUT /v1/integrations/{id}/integration-models). */
  custom_headers: customHeaders.nullish(),
  pricing_config: pricingConfigSchema.nullish(),
});

export const putIntegrationModelsSchema = z.strictObject({
  models: z.array(integrationModelSchema).max(1000).superRefine((items, ctx) => {
    const seen = new Set<string>();
    items.forEach((m, i) => {
      if (seen.has(m.slug)) ctx.addIssue({ code: 'custom', path: [i, 'slug'], message: 'duplicate slug' });
      seen.add(m.slug);
    });
  }),
  allow_all_models: z.boolean().optional(),
});
export type PutIntegrationModelsInput = z.output<typeof putIntegrationModelsSchema>;

const limitsArrays = {
  usage_limits: z.array(usageLimitsSchema).max(1).nullish(),
  rate_limits: z.array(rateLimitSchema).max(1).nullish(),
};

export const globalWorkspaceAccessSchema = z.strictObject({ enabled: z.boolean(), ...limitsArrays });

export const putIntegrationWorkspacesSchema = z.strictObject({
  workspaces: z
    .array(
      z.strictObject({
        id: z.string().min(1).max(255),
        enabled: z.boolean(),
        ...limitsArrays,
        reset_usage: z.boolean().optional(),
        create_default_provider: z.boolean().optional(),
        default_provider_slug: slugSchema.optional(),
      }),
    )
    .max(1000)
    .optional(),
  global_workspace_access: globalWorkspaceAccessSchema.nullish(),
  override_existing_workspace_access: z.boolean().optional(),
  create_default_provider: z.boolean().optional(),
  default_provider_slug: slugSchema.optional(),
});
export type PutIntegrationWorkspacesInput = z.output<typeof putIntegrationWorkspacesSchema>;
