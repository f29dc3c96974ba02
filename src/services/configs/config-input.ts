import { z } from 'zod';

// Request bodies of /configs (control-plane-schemas 2.2). The `config` body itself is checked by
// parseGatewayConfig (src/domain/config/config-schema.ts), naming `config.<path>`.

export const createConfigSchema = z.strictObject({
  name: z.string().trim().min(1).max(255).optional(),
  config: z.unknown().optional(),
  /** camelCase as in the API; 0/1. */
  isDefault: z.union([z.literal(0), z.literal(1)]).optional(),
  /** Id or slug; required for organisation keys, the key's own workspace for workspace keys. */
  workspace_id: z.string().min(1).optional(),
});
export type CreateConfigInput = z.output<typeof createConfigSchema>;

export const updateConfigSchema = z.strictObject({
  name: z.string().trim().min(1).max(255).optional(),
  config: z.unknown().optional(),
  status: z.enum(['active', 'inactive']).optional(),
});
export type UpdateConfigInput = z.output<typeof updateConfigSchema>;
