import { z } from 'zod';
import { dateTimeSchema, nameSchema, rateLimitSchema, slugSchema, usageLimitsSchema } from '../../domain/integrations/shared-schemas.ts';

// Request bodies of /providers (control-plane-schemas 2.5). `rate_limits` is one object here and
// an array in answers (quirk 7); an array of at most one is accepted too.

const rateLimitsInput = z.union([rateLimitSchema, z.array(rateLimitSchema).max(1)]);

export const createProviderSchema = z.strictObject({
  name: nameSchema,
  /** The integration's slug (or id). */
  integration_id: z.string().min(1).max(255),
  workspace_id: z.string().min(1).max(255).optional(),
  slug: slugSchema.optional(),
  note: z.string().max(2048).nullish(),
  usage_limits: usageLimitsSchema.nullish(),
  rate_limits: rateLimitsInput.nullish(),
  expires_at: dateTimeSchema.nullish(),
});
export type CreateProviderInput = z.output<typeof createProviderSchema>;

export const updateProviderSchema = z.strictObject({
  name: nameSchema.optional(),
  note: z.string().max(2048).nullish(),
  usage_limits: usageLimitsSchema.nullish(),
  rate_limits: rateLimitsInput.nullish(),
  expires_at: dateTimeSchema.nullish(),
  reset_usage: z.boolean().optional(),
});
export type UpdateProviderInput = z.output<typeof updateProviderSchema>;

/** One object or an array of at most one → the stored array form. */
export const rateLimitsArray = (v: z.output<typeof rateLimitsInput> | null | undefined): Record<string, unknown>[] | null =>
  v == null ? null : Array.isArray(v) ? (v.length ? v : null) : [v];
