// Organisation and workspace settings for API keys (spec: Rotation rules; Authentication 6;
// Limits: "limits on the number of user API keys and default/maximum key expiry durations").
// A workspace value, when set, overrides the organisation's.
import { z } from 'zod';

const periodDays = z
  .union([z.number().int().min(1).max(365), z.enum(['weekly', 'monthly'])])
  .transform((v) => (v === 'weekly' ? 7 : v === 'monthly' ? 30 : v));

const common = {
  /** Enforced rotation cadence for user keys, in days (weekly → 7, monthly → 30). */
  user_api_key_rotation_period: periodDays.nullish(),
  /** At most this many active user keys per user in a workspace. */
  max_user_api_keys_per_user: z.number().int().min(1).max(1000).nullish(),
  /** Expiry given to new keys that name none, in days. */
  default_api_key_expiry_days: z.number().int().min(1).max(3650).nullish(),
  /** No key may be created or updated to expire later than this many days ahead. */
  max_api_key_expiry_days: z.number().int().min(1).max(3650).nullish(),
  /** Create a user key for each member added to the workspace. */
  user_api_key_auto_create: z.boolean().nullish(),
  /** Scopes of auto-created user keys (bounded by the member's role). */
  user_api_key_auto_create_scopes: z.array(z.string().min(1)).max(200).nullish(),
};

const checkExpiry = (v: { default_api_key_expiry_days?: number | null; max_api_key_expiry_days?: number | null }, ctx: z.RefinementCtx) => {
  if (v.default_api_key_expiry_days != null && v.max_api_key_expiry_days != null && v.default_api_key_expiry_days > v.max_api_key_expiry_days) {
    ctx.addIssue({ code: 'custom', path: ['default_api_key_expiry_days'], message: 'must not exceed max_api_key_expiry_days' });
  }
};

export const workspaceSettingsSchema = z.strictObject(common).superRefine(checkExpiry);

export const organisationSettingsSchema = z
  .strictObject({
    ...common,
    /** Organisation-only: auto-create user keys for members of the default workspace. */
    default_workspace_user_api_key_auto_create: z.boolean().nullish(),
    /**
     * Data-plane security setting (spec: Authentication 9, saved-only mode): requests may not pick
     * a provider, endpoint or config inline; only saved resources (managed providers, saved configs).
     */
    block_inline_config: z.boolean().nullish(),
  })
  .superRefine(checkExpiry);

export type WorkspaceSettings = z.output<typeof workspaceSettingsSchema>;
export type OrganisationSettings = z.output<typeof organisationSettingsSchema>;

export interface EffectiveKeySettings {
  rotationPeriodDays: number | null;
  maxUserKeysPerUser: number | null;
  defaultExpiryDays: number | null;
  maxExpiryDays: number | null;
  autoCreate: boolean;
  autoCreateScopes: string[] | null;
}

/** Workspace values override the organisation's; the default workspace follows the organisation-only switch. */
export function effectiveKeySettings(org: OrganisationSettings, ws: WorkspaceSettings | null, isDefaultWorkspace: boolean): EffectiveKeySettings {
  const pick = <K extends keyof WorkspaceSettings>(k: K) => (ws?.[k] ?? org[k] ?? null) as NonNullable<WorkspaceSettings[K]> | null;
  const autoCreate = isDefaultWorkspace
    ? (org.default_workspace_user_api_key_auto_create ?? ws?.user_api_key_auto_create ?? false)
    : (ws?.user_api_key_auto_create ?? org.user_api_key_auto_create ?? false);
  return {
    rotationPeriodDays: pick('user_api_key_rotation_period'),
    maxUserKeysPerUser: pick('max_user_api_keys_per_user'),
    defaultExpiryDays: pick('default_api_key_expiry_days'),
    maxExpiryDays: pick('max_api_key_expiry_days'),
    autoCreate,
    autoCreateScopes: pick('user_api_key_auto_create_scopes'),
  };
}
