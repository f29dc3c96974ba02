import { z } from 'zod';
import { actionsSchema, checksSchema } from '../../domain/guardrails/guardrail-schema.ts';

// Request bodies of /guardrails (control-plane-schemas 2.3). Checks and actions are checked by the
// pure schemas in src/domain/guardrails, naming `checks[i].parameters.<field>`.

export const createGuardrailSchema = z.strictObject({
  name: z.string().trim().min(1).max(255),
  /** Id or slug: a workspace guardrail. A workspace key's own workspace when omitted. */
  workspace_id: z.string().min(1).optional(),
  /** The caller's organisation: with an organisation key and no workspace_id, an organisation guardrail. */
  organisation_id: z.string().min(1).optional(),
  checks: checksSchema,
  actions: actionsSchema,
});
export type CreateGuardrailInput = z.output<typeof createGuardrailSchema>;

export const updateGuardrailSchema = z.strictObject({
  name: z.string().trim().min(1).max(255).optional(),
  checks: checksSchema.optional(),
  actions: actionsSchema.optional(),
});
export type UpdateGuardrailInput = z.output<typeof updateGuardrailSchema>;
