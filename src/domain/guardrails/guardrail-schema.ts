// A saved guardrail's body: checks and actions (control-plane-schemas 2.3 GuardrailCheck,
// GuardrailActions). Pure: zod only. Errors carry the exact path (`checks[1].parameters.rule`).
import { z } from 'zod';
import { CHECK_PARAMETERS, isKnownCheckId, normaliseCheckId } from './check-catalogue.ts';

export const MAX_CHECKS = 50;

export interface GuardrailCheck {
  id: string;
  parameters: Record<string, unknown>;
  name?: string;
  is_enabled: boolean;
}

export interface Feedback {
  value: number;
  weight: number;
  metadata: string;
}

export interface GuardrailActions {
  deny: boolean;
  async: boolean;
  on_success: { feedback: Feedback };
  on_fail: { feedback: Feedback };
}

/** One check: a known id (bare `fn` read as `default.fn`) and the parameters that id takes. */
export const guardrailCheckSchema = z
  .strictObject({
    id: z.string().min(1).max(128),
    parameters: z.record(z.string(), z.unknown()).optional(),
    name: z.string().trim().min(1).max(255).optional(),
    is_enabled: z.boolean().optional(),
  })
  .transform((check, ctx): GuardrailCheck => {
    const id = normaliseCheckId(check.id);
    if (!isKnownCheckId(id)) {
      ctx.addIssue({ code: 'custom', path: ['id'], message: `unknown check id "${check.id}"` });
      return z.NEVER;
    }
    const r = CHECK_PARAMETERS[id].safeParse(check.parameters ?? {});
    if (!r.success) {
      for (const issue of r.error.issues) {
        const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
        const message = issue.code === 'unrecognized_keys' ? `not a parameter of ${id}` : issue.message;
        ctx.addIssue({ code: 'custom', path: ['parameters', ...path], message });
      }
      return z.NEVER;
    }
    // Store what was given (validated), not the parsed output with coerced extras.
    return { id, parameters: check.parameters ?? {}, ...(check.name !== undefined ? { name: check.name } : {}), is_enabled: check.is_enabled ?? true };
  });

export const checksSchema = z.array(guardrailCheckSchema).min(1, 'needs at least one check').max(MAX_CHECKS);

const feedback = (value: number) =>
  z
    .strictObject({ value: z.number().optional(), weight: z.number().min(0).optional(), metadata: z.string().max(4096).optional() })
    .transform((f): Feedback => ({ value: f.value ?? value, weight: f.weight ?? 1, metadata: f.metadata ?? '' }));

/** GuardrailActions; members left out take the documented defaults (deny false, async false, feedback ±5 / 1 / ""). */
export const actionsSchema = z
  .strictObject({
    deny: z.boolean().optional(),
    async: z.boolean().optional(),
    on_success: z.strictObject({ feedback: feedback(5).optional() }).optional(),
    on_fail: z.strictObject({ feedback: feedback(-5).optional() }).optional(),
  })
  .transform(
    (a): GuardrailActions => ({
      deny: a.deny ?? false,
      async: a.async ?? false,
      on_success: { feedback: a.on_success?.feedback ?? { value: 5, weight: 1, metadata: '' } },
      on_fail: { feedback: a.on_fail?.feedback ?? { value: -5, weight: 1, metadata: '' } },
    }),
  );
