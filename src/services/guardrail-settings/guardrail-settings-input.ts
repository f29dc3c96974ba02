import { z } from 'zod';

// Bodies of the organisation defaults and workspace exclusions (gateway-spec, "Other control-plane
// operations").

const refs = z.array(z.string().trim().min(1).max(255)).max(50);

/** PUT /admin/organisation/defaults: a given list replaces that direction's defaults (ids or slugs). */
export const organisationDefaultsSchema = z.strictObject({
  input_guardrails: refs.optional(),
  output_guardrails: refs.optional(),
});

/**
 * PUT /workspace-exclusions/{input,output}-guardrails: each entry excludes (`excluded: true`, the
 * default) or restores one workspace. Merged into the current exclusions unless
 * `override_existing`, which makes the excluded entries the whole set.
 */
export const workspaceExclusionsSchema = z.strictObject({
  workspaces: z
    .array(z.strictObject({ workspace_id: z.string().trim().min(1).max(255), excluded: z.boolean().optional() }))
    .max(1000),
  override_existing: z.boolean().optional(),
});
