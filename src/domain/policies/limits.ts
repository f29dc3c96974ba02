// Limit fields of policies (control-plane-schemas 2.11, 2.12; gateway-spec Limits) and the
// usage-limit reset calendar. Pure.

export const RATE_LIMIT_TYPES = ['requests', 'tokens'] as const;
export const RATE_LIMIT_UNITS = ['rpm', 'rph', 'rpd'] as const;
/** `requests` is the policies-only addition (gateway-spec Limits: "plus requests (policies)"). */
export const USAGE_LIMIT_TYPES = ['cost', 'tokens', 'requests'] as const;
export const PERIODIC_RESETS = ['monthly', 'weekly'] as const;
export const POLICY_STATUSES = ['active', 'archived'] as const;

export type RateLimitUnit = (typeof RATE_LIMIT_UNITS)[number];
export type PeriodicReset = (typeof PERIODIC_RESETS)[number];

/** Window length of a rate-limit unit, in milliseconds. */
export function unitWindowMs(unit: RateLimitUnit): number {
  return unit === 'rpm' ? 60_000 : unit === 'rph' ? 3_600_000 : 86_400_000;
}

/**
 * When a usage-limit counter next resets: `monthly` at the start of the next calendar month (UTC),
 * `weekly` at the next Monday 00:00 UTC, `periodic_reset_days` N days after `from`; null when the
 * limit is cumulative (no reset).
 */
export function nextUsageResetAt(reset: { periodic_reset?: PeriodicReset | null; periodic_reset_days?: number | null }, from: Date): Date | null {
  if (reset.periodic_reset === 'monthly') return new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + 1, 1));
  if (reset.periodic_reset === 'weekly') {
    const daysToMonday = ((8 - from.getUTCDay()) % 7) || 7;
    return new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate() + daysToMonday));
  }
  if (reset.periodic_reset_days) return new Date(from.getTime() + reset.periodic_reset_days * 86_400_000);
  return null;
}
