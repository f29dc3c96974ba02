// `current_usage` of an API key (spec: "The API key details also carry the current usage in
// `current_usage` (fractions are reported)"): what the key has used against its usage limit
// since the last reset, from the request log.
import type { EntityManager } from '@mikro-orm/postgresql';
import { DAY_MS } from '../../domain/api-key-input.ts';
import type { ApiKey } from '../../persistence/entities/api-key.ts';
import type { StoredUsageLimits } from './key-rules.ts';

export interface CurrentUsage {
  type: 'cost' | 'tokens';
  /** Tokens, or cost in the limit's unit; 0 for cost until pricing is tracked. */
  used: number;
  /** `credit_limit`; null when the limits set none. */
  limit: number | null;
  /** used / limit as a decimal (0.125 = 12.5 %); can exceed 1; null without a limit. */
  fraction: number | null;
  /** When the counted window began (the last manual or periodic reset); null: since the key was created. */
  reset_at: string | null;
  /** When the periodic reset next zeroes the count; null without a periodic reset. */
  next_reset_at: string | null;
  /** `unavailable` for cost limits: the request log has no cost yet (pricing catalogue pending). */
  cost_tracking: 'available' | 'unavailable';
}

const MAX_STEPS = 10_000;

function step(d: Date, limits: StoredUsageLimits, dir: 1 | -1): Date {
  if (limits.periodic_reset === 'monthly' && limits.periodic_reset_days == null) {
    const out = new Date(d);
    out.setUTCMonth(out.getUTCMonth() + dir);
    return out;
  }
  const days = limits.periodic_reset_days ?? (limits.periodic_reset === 'weekly' ? 7 : 0);
  return new Date(d.getTime() + dir * days * DAY_MS);
}

/**
 * The current periodic window [start, next) that contains `now`, anchored on
 * next_usage_reset_at when given, else on the key's creation; null without a periodic reset.
 */
export function periodicWindow(limits: StoredUsageLimits, createdAt: Date, now: Date): { start: Date; next: Date } | null {
  if (limits.periodic_reset == null && limits.periodic_reset_days == null) return null;
  let next = limits.next_usage_reset_at ? new Date(limits.next_usage_reset_at) : step(createdAt, limits, 1);
  for (let i = 0; next.getTime() <= now.getTime() && i < MAX_STEPS; i++) next = step(next, limits, 1);
  let start = step(next, limits, -1);
  for (let i = 0; start.getTime() > now.getTime() && i < MAX_STEPS; i++) {
    next = start;
    start = step(start, limits, -1);
  }
  return { start, next };
}

interface Plan {
  key: ApiKey;
  limits: StoredUsageLimits;
  since: Date | null;
  next: Date | null;
}

function plan(key: ApiKey, now: Date): Plan | null {
  const limits = key.usageLimits as StoredUsageLimits | null;
  if (!limits) return null;
  const window = periodicWindow(limits, key.createdAt, now);
  const lastReset = limits.last_reset_at ? new Date(limits.last_reset_at) : null;
  const starts = [window?.start ?? null, lastReset].filter((d): d is Date => d !== null && d.getTime() > key.createdAt.getTime());
  const since = starts.length ? new Date(Math.max(...starts.map((d) => d.getTime()))) : null;
  return { key, limits, since, next: window?.next ?? null };
}

/** current_usage for each key (null for keys without usage limits), with one query for all token-limited keys. */
export async function currentUsageFor(em: EntityManager, keys: ApiKey[], now = new Date()): Promise<Map<string, CurrentUsage | null>> {
  const out = new Map<string, CurrentUsage | null>();
  const plans = keys.map((k) => plan(k, now));
  const tokenPlans = plans.filter((p): p is Plan => p !== null && p.limits.type === 'tokens');
  const used = new Map<string, number>();
  if (tokenPlans.length) {
    const byOrg = new Map<string, Plan[]>();
    for (const p of tokenPlans) byOrg.set(p.key.organisationId, [...(byOrg.get(p.key.organisationId) ?? []), p]);
    for (const [organisationId, group] of byOrg) {
      const windows = JSON.stringify(group.map((p) => ({ id: p.key.id, since: p.since?.toISOString() ?? null })));
      const rows = await em.getConnection().execute<{ id: string; used: string }[]>(
        `select w.id::text as id, coalesce(sum(r.total_tokens), 0)::text as used
           from jsonb_to_recordset(?::jsonb) as w(id uuid, since timestamptz)
           left join request_log r on r.organisation_id = ? and r.api_key_id = w.id and (w.since is null or r.started_at >= w.since)
          group by w.id`,
        [windows, organisationId],
        'all',
        em.getTransactionContext(),
      );
      for (const r of rows) used.set(r.id, Number(r.used));
    }
  }
  keys.forEach((k, i) => {
    const p = plans[i];
    if (!p) {
      out.set(k.id, null);
      return;
    }
    const type = p.limits.type === 'tokens' ? 'tokens' : 'cost';
    const u = type === 'tokens' ? (used.get(k.id) ?? 0) : 0;
    const limit = p.limits.credit_limit ?? null;
    out.set(k.id, {
      type,
      used: u,
      limit,
      fraction: limit ? u / limit : null,
      reset_at: p.since?.toISOString() ?? null,
      next_reset_at: p.next?.toISOString() ?? null,
      cost_tracking: type === 'tokens' ? 'available' : 'unavailable',
    });
  });
  return out;
}
