// Workspace create and update bodies (control-plane-schemas 2.7; gateway-spec: `PUT /v2/workspaces/{id}`
// with `defaults.user_api_key_config`). Limits reuse the API key entries; lists hold at most one item.
import { z } from 'zod';
import { rateLimitSchema, usageLimitsSchema } from '../../domain/api-key-input.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const WORKSPACE_STATUSES = ['active', 'archived'] as const;
export type WorkspaceStatus = (typeof WORKSPACE_STATUSES)[number];

const requiredString = z.string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') });

export const workspaceSlugSchema = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[a-zA-Z0-9_-]+$/, 'may contain only letters, digits, _ and -')
  // Workspaces are addressed by id or slug: a slug shaped like a UUID would be read as an id.
  .refine((s) => !UUID.test(s), 'must not look like a UUID');

const guardrailRefs = z.array(z.string().trim().min(1).max(255)).max(50);

export const workspaceDefaultsSchema = z.strictObject({
  metadata: z.record(z.string().max(255), z.string().max(2048)).nullish(),
  input_guardrails: guardrailRefs.nullish(),
  output_guardrails: guardrailRefs.nullish(),
  /** Default config (id or slug) of the workspace's user keys; `null` clears it. Configs are checked when they exist. */
  user_api_key_config: z.string().min(1).max(255).nullish(),
});

const limits = {
  usage_limits: z.array(usageLimitsSchema).max(1, 'at most one usage limit').nullish(),
  rate_limits: z.array(rateLimitSchema).max(1, 'at most one rate limit').nullish(),
};

export const createWorkspaceSchema = z.strictObject({
  name: requiredString.trim().min(1, 'is required').max(255),
  slug: workspaceSlugSchema.nullish(),
  description: z.string().max(2000).nullish(),
  defaults: workspaceDefaultsSchema.nullish(),
  /** Initial members (organisation user ids), added with the role `member`. */
  users: z.array(z.uuid('must be a user id (uuid)')).max(1000).nullish(),
  ...limits,
  /** Validated and normalised with the workspace settings schema by the service. */
  settings: z.unknown().optional(),
});

export const updateWorkspaceSchema = z.strictObject({
  name: z.string().trim().min(1, 'must not be empty').max(255).optional(),
  description: z.string().max(2000).nullish(),
  defaults: workspaceDefaultsSchema.nullish(),
  ...limits,
  settings: z.unknown().optional(),
  status: z.enum(WORKSPACE_STATUSES).optional(),
});

export type CreateWorkspaceInput = z.output<typeof createWorkspaceSchema>;
export type UpdateWorkspaceInput = z.output<typeof updateWorkspaceSchema>;
export type WorkspaceDefaultsInput = z.output<typeof workspaceDefaultsSchema>;
