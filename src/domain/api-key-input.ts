// The API key create request (spec: "API key (create request)", its rate limit entry,
// usage limits and rotation rules). Every rule of those tables is enforced here.
import { z } from 'zod';
import { RATE_LIMIT_TYPES, RATE_LIMIT_UNITS } from './api-key.ts';

const dateTime = z.iso.datetime({ offset: true, message: 'must be an ISO-8601 date-time' });
export const MIN_TRANSITION_MS = 1_800_000;
export const DAY_MS = 86_400_000;

export const rateLimitSchema = z.strictObject({
  type: z.enum(RATE_LIMIT_TYPES),
  unit: z.enum(RATE_LIMIT_UNITS),
  value: z.number().int().min(0),
});

export const usageLimitsSchema = z
  .strictObject({
    credit_limit: z.number().int().min(1).nullish(),
    type: z.enum(['cost', 'tokens']).nullish(),
    alert_threshold: z.number().int().min(1).nullish(),
    periodic_reset: z.enum(['monthly', 'weekly']).nullish(),
    periodic_reset_days: z.number().int().min(1).max(365).nullish(),
    next_usage_reset_at: dateTime.nullish(),
  })
  .superRefine((v, ctx) => {
    if (v.periodic_reset != null && v.periodic_reset_days != null) {
      ctx.addIssue({ code: 'custom', path: ['periodic_reset_days'], message: 'periodic_reset and periodic_reset_days are mutually exclusive' });
    }
  });

export const rotationPolicySchema = z
  .strictObject({
    rotation_period: z.enum(['weekly', 'monthly']).nullish(),
    rotation_period_days: z.number().int().min(1).max(365).nullish(),
    next_rotation_at: dateTime.nullish(),
    key_transition_period_ms: z.number().int().min(MIN_TRANSITION_MS).nullish(),
  })
  .superRefine((v, ctx) => {
    if (v.rotation_period != null && v.rotation_period_days != null) {
      ctx.addIssue({ code: 'custom', path: ['rotation_period_days'], message: 'rotation_period and rotation_period_days are mutually exclusive' });
    }
    const periodDays = rotationPeriodDays(v);
    if (periodDays == null && v.next_rotation_at == null) {
      ctx.addIssue({ code: 'custom', path: ['rotation_period'], message: 'a rotation policy needs rotation_period, rotation_period_days or next_rotation_at' });
    }
    if (v.next_rotation_at != null && Date.parse(v.next_rotation_at) <= Date.now()) {
      ctx.addIssue({ code: 'custom', path: ['next_rotation_at'], message: 'must be in the future' });
    }
    if (periodDays != null && v.key_transition_period_ms != null && v.key_transition_period_ms >= periodDays * DAY_MS) {
      ctx.addIssue({ code: 'custom', path: ['key_transition_period_ms'], message: 'must be shorter than the rotation period' });
    }
  });

export function rotationPeriodDays(p: { rotation_period?: 'weekly' | 'monthly' | null; rotation_period_days?: number | null }): number | null {
  if (p.rotation_period_days != null) return p.rotation_period_days;
  if (p.rotation_period === 'weekly') return 7;
  if (p.rotation_period === 'monthly') return 30;
  return null;
}

export const apiKeyDefaultsSchema = z.strictObject({
  metadata: z.record(z.string(), z.unknown()).optional(),
  config_id: z.string().min(1).max(255).optional(),
  allow_config_override: z.boolean().default(true),
});

export const createApiKeySchema = z
  .strictObject({
    name: z.string().trim().min(1, 'is required').max(255),
    description: z.string().max(2000).nullish(),
    organisation_id: z.uuid().nullish(),
    workspace_id: z.string().min(1).max(255).nullish(),
    user_id: z.uuid().nullish(),
    rate_limits: z.array(rateLimitSchema).max(20).nullish(),
    usage_limits: usageLimitsSchema.nullish(),
    scopes: z.array(z.string().min(1)).max(200),
    defaults: apiKeyDefaultsSchema.nullish(),
    alert_emails: z.array(z.email('must be an e-mail address')).max(50).nullish(),
    expires_at: dateTime.nullish(),
    rotation_policy: rotationPolicySchema.nullish(),
  })
  .superRefine(checkCommon);

export type CreateApiKeyInput = z.output<typeof createApiKeySchema>;

/** Rules shared by create and update: a future expiry, one rate limit per type and unit. */
function checkCommon(v: { expires_at?: string | null; rate_limits?: { type: string; unit: string }[] | null }, ctx: z.RefinementCtx): void {
  if (v.expires_at != null && Date.parse(v.expires_at) <= Date.now()) {
    ctx.addIssue({ code: 'custom', path: ['expires_at'], message: 'must be in the future' });
  }
  const seen = new Set<string>();
  v.rate_limits?.forEach((r, i) => {
    const k = `${r.type}:${r.unit}`;
    if (seen.has(k)) ctx.addIssue({ code: 'custom', path: ['rate_limits', i], message: `duplicate ${r.type} limit per ${r.unit}` });
    seen.add(k);
  });
}

/** Fields fixed at creation: sending one on update is a 400 naming it (control-plane-schemas 2.1). */
export const IMMUTABLE_API_KEY_FIELDS = ['type', 'user_id', 'workspace_id', 'organisation_id'] as const;

/** `PUT /api-keys/{id}`: every field optional; `null` clears a nullable one. */
export const updateApiKeySchema = z
  .strictObject({
    name: z.string().trim().min(1, 'is required').max(255).optional(),
    description: z.string().max(2000).nullish(),
    rate_limits: z.array(rateLimitSchema).max(20).nullish(),
    usage_limits: usageLimitsSchema.nullish(),
    /** Zero the usage counted against usage_limits and re-activate an exhausted key. */
    reset_usage: z.boolean().optional(),
    scopes: z.array(z.string().min(1)).max(200).optional(),
    defaults: apiKeyDefaultsSchema.nullish(),
    alert_emails: z.array(z.email('must be an e-mail address')).max(50).nullish(),
    expires_at: dateTime.nullish(),
    rotation_policy: rotationPolicySchema.nullish(),
    // Accepted by shape only so the answer can say why they are refused.
    type: z.unknown().optional(),
    user_id: z.unknown().optional(),
    workspace_id: z.unknown().optional(),
    organisation_id: z.unknown().optional(),
  })
  .superRefine((v, ctx) => {
    for (const f of IMMUTABLE_API_KEY_FIELDS) {
      if (v[f] !== undefined) ctx.addIssue({ code: 'custom', path: [f], message: 'cannot be changed after the key is created' });
    }
    checkCommon(v, ctx);
  });

export type UpdateApiKeyInput = z.output<typeof updateApiKeySchema>;

/** The longest transition a rotation may ask for (the old secret's remaining life). */
export const MAX_TRANSITION_MS = 365 * DAY_MS;

/** `POST /api-keys/{id}/rotate`: an optional transition period (spec, Limits: at least 1800000 ms). */
export const rotateApiKeySchema = z.strictObject({
  key_transition_period_ms: z.number().int().min(MIN_TRANSITION_MS).max(MAX_TRANSITION_MS).nullish(),
});

export type RotateApiKeyInput = z.output<typeof rotateApiKeySchema>;
