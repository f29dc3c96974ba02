import { z } from 'zod';
import { dateTimeSchema, nameSchema, rateLimitSchema, secretMappingSchema, usageLimitsSchema } from '../../domain/integrations/shared-schemas.ts';

// Request bodies of the legacy /virtual-keys (control-plane-schemas 2.6). Azure-style options
// are camelCase as upstream.

/** The provider enum upstream lists (`open-ai` is an alias of `openai`). */
export const VIRTUAL_KEY_PROVIDERS = [
  'openai', 'azure-openai', 'ai21', 'anthropic', 'anyscale', 'bedrock', 'cohere', 'deepinfra', 'fireworks-ai', 'google', 'groq',
  'hugging-face', 'jina', 'lingyi', 'mistral-ai', 'monsterapi', 'moonshot', 'nomic', 'novita-ai', 'open-ai', 'openrouter', 'palm',
  'perplexity-ai', 'predibase', 'reka-ai', 'segmind', 'stability-ai', 'together-ai', 'vertex-ai', 'workers-ai', 'zhipu',
] as const;

const deploymentConfig = z
  .array(
    z.strictObject({
      apiVersion: z.string().min(1).max(30),
      alias: z.string().max(255).optional(),
      is_default: z.boolean().optional(),
      deploymentName: z.string().min(1).max(255),
    }),
  )
  .max(100)
  .refine((d) => d.filter((x) => x.is_default).length <= 1, 'at most one deployment may be is_default');

const secretMappings = secretMappingSchema(/^(key|model_config\.[A-Za-z0-9_]+)$/, '`key` or `model_config.<field>`');
const rateLimitsInput = z.union([rateLimitSchema, z.array(rateLimitSchema).max(1)]);

export const createVirtualKeySchema = z.strictObject({
  name: nameSchema.optional(),
  /** Not required upstream, but a key without a provider cannot be used: required here. */
  provider: z.enum(VIRTUAL_KEY_PROVIDERS, { message: 'required: one of the supported provider ids (e.g. openai)' }),
  key: z.string().min(1).max(8192).nullish(),
  note: z.string().max(2048).nullish(),
  apiVersion: z.string().max(30).nullish(),
  resourceName: z.string().max(255).nullish(),
  deploymentName: z.string().max(255).nullish(),
  workspace_id: z.string().min(1).max(255).optional(),
  deploymentConfig: deploymentConfig.optional(),
  usage_limits: usageLimitsSchema.nullish(),
  rate_limits: rateLimitsInput.nullish(),
  expires_at: dateTimeSchema.nullish(),
  secret_mappings: secretMappings.nullish(),
});
export type CreateVirtualKeyInput = z.output<typeof createVirtualKeySchema>;

/** Update: upstream's fields, plus `rate_limits` and `expires_at` as providers have them. */
export const updateVirtualKeySchema = z.strictObject({
  name: nameSchema.optional(),
  key: z.string().min(1).max(8192).optional(),
  note: z.string().max(2048).nullish(),
  deploymentConfig: deploymentConfig.optional(),
  usage_limits: usageLimitsSchema.nullish(),
  rate_limits: rateLimitsInput.nullish(),
  expires_at: dateTimeSchema.nullish(),
  secret_mappings: secretMappings.nullish(),
});
export type UpdateVirtualKeyInput = z.output<typeof updateVirtualKeySchema>;
