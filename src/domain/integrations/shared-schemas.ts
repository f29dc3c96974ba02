// Sub-schemas shared by integrations, providers and virtual keys (control-plane-schemas 1.5).
import { z } from 'zod';
import { usageLimitsSchema } from '../api-key-input.ts';
import { MAX_NAME, SLUG_PATTERN } from './configurations.ts';

export { usageLimitsSchema };

export const nameSchema = z.string().trim().min(1, 'is required').max(MAX_NAME, `at most ${MAX_NAME} characters`);
export const slugSchema = z
  .string()
  .min(1)
  .max(MAX_NAME, `at most ${MAX_NAME} characters`)
  .regex(SLUG_PATTERN, 'only letters, digits, `_` and `-`');

/** RateLimits (generic form): requests or tokens per day, hour or minute. */
export const rateLimitSchema = z.strictObject({
  type: z.enum(['requests', 'tokens']),
  unit: z.enum(['rpd', 'rph', 'rpm']),
  value: z.number().int().min(0),
});

/** SecretMapping: stored as given; the secret-reference service resolves it, not this one. */
export const secretMappingSchema = (targets: RegExp, targetsText: string) =>
  z
    .array(
      z.strictObject({
        target_field: z.string().regex(targets, `must be ${targetsText}`),
        secret_reference_id: z.string().min(1).max(255),
        secret_key: z.string().max(255).nullish(),
        value_format: z.enum(['json', 'string']).nullish(),
      }),
    )
    .superRefine((items, ctx) => {
      const seen = new Set<string>();
      items.forEach((m, i) => {
        if (seen.has(m.target_field)) ctx.addIssue({ code: 'custom', path: [i, 'target_field'], message: 'must be unique' });
        seen.add(m.target_field);
      });
    });

const multiplier = z.number().min(0).nullable();
const MULTIPLIER_KEYS = [
  'default',
  'request_token',
  'response_token',
  'cache_read_input_token',
  'cache_write_input_token',
  'cache_read_audio_input_token',
  'request_audio_token',
  'response_audio_token',
  'reasoning_token',
  'prediction_accepted_token',
  'prediction_rejected_token',
  'request_image_token',
  'response_image_token',
  'request_text_token',
  'response_text_token',
  'cache_read_image_input_token',
  'cache_read_text_input_token',
  'cache_write_text_input_token',
  'cache_write_image_input_token',
];

/** PricingAdjustments: multipliers on the catalogue price (1 unchanged, 0.8 a 20 % discount). */
export const pricingAdjustmentsSchema = z.strictObject({
  multiplier: z
    .strictObject({
      ...Object.fromEntries(MULTIPLIER_KEYS.map((k) => [k, multiplier.optional()])),
      image: z.strictObject({ default: multiplier.optional() }).optional(),
      additional_units: z.record(z.string(), z.number().min(0)).optional(),
    })
    .optional(),
});

/** A model's custom price: `{type: "static", pay_as_you_go: {request_token: {price}, response_token: {price}, ...}}`. */
export const pricingConfigSchema = z.strictObject({
  type: z.literal('static'),
  pay_as_you_go: z.record(z.string().regex(/^[a-z_]+$/), z.strictObject({ price: z.number().min(0) })).optional(),
});

export const dateTimeSchema = z.iso.datetime({ offset: true, message: 'must be an ISO-8601 date-time' });

/** A name made into a slug: lower case, `-` between words, at most 240 characters (room for a suffix). */
export function slugifyName(name: string, fallback: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 240)
    .replace(/-+$/, '');
  return base || fallback;
}

/** Six random hex characters. */
export const randomSuffix = (): string => Array.from(crypto.getRandomValues(new Uint8Array(3)), (b) => b.toString(16).padStart(2, '0')).join('');
