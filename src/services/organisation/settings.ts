// Organisation and workspace API-key settings: stored sparse (only what was set), shown in
// full (null for unset), updated by merging (a given field replaces, `null` clears it).
import type { z } from 'zod';
import { organisationSettingsSchema, workspaceSettingsSchema } from '../../domain/tenancy-settings.ts';
import { invalidParameter } from '../../domain/errors.ts';
import { parseWith } from '../../domain/validation.ts';

export type SettingsSchema = typeof workspaceSettingsSchema | typeof organisationSettingsSchema;

export const WORKSPACE_SETTING_KEYS = Object.keys(workspaceSettingsSchema.shape) as (keyof z.output<typeof workspaceSettingsSchema>)[];
export const ORGANISATION_SETTING_KEYS = Object.keys(organisationSettingsSchema.shape) as (keyof z.output<typeof organisationSettingsSchema>)[];

/** Every known setting, null when unset. */
export function settingsView(stored: Record<string, unknown> | null | undefined, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, stored?.[k] ?? null]));
}

/**
 * Validates `input` (naming the field under `prefix`), merges it into `stored` and validates the
 * result again, so a rule spanning two fields (default expiry ≤ maximum) holds for the merged
 * settings, not only for what this request sent.
 */
export function mergeSettings(schema: SettingsSchema, stored: Record<string, unknown> | null | undefined, input: unknown, prefix = ''): Record<string, unknown> {
  const given = parseWith(schema, input, prefix) as Record<string, unknown>;
  const known = new Set(Object.keys(schema.shape));
  const merged: Record<string, unknown> = Object.fromEntries(Object.entries(stored ?? {}).filter(([k]) => known.has(k)));
  for (const [k, v] of Object.entries(given)) {
    if (v === null || v === undefined) delete merged[k];
    else merged[k] = v;
  }
  // The one rule spanning two fields, named after the field this request changed.
  const dflt = merged.default_api_key_expiry_days as number | undefined;
  const max = merged.max_api_key_expiry_days as number | undefined;
  if (dflt != null && max != null && dflt > max) {
    const field = 'default_api_key_expiry_days' in given ? 'default_api_key_expiry_days' : 'max_api_key_expiry_days';
    const param = [prefix, field].filter(Boolean).join('.');
    throw invalidParameter(param, `${param}: default_api_key_expiry_days (${dflt}) must not exceed max_api_key_expiry_days (${max})`);
  }
  return parseWith(schema, merged, prefix) as Record<string, unknown>;
}
