import type { Provider } from '../../persistence/entities/provider.ts';

/** `active`, `exhausted` (usage limit reached, set by usage accounting) or `expired` (past expires_at). */
export function providerStatus(p: Pick<Provider, 'status' | 'expiresAt'>, now = Date.now()): string {
  if (p.expiresAt && p.expiresAt.getTime() <= now) return 'expired';
  return p.status;
}

/** The Provider object (control-plane-schemas 2.5), plus `id` and `workspace_id`. */
export interface ProviderView {
  id: string;
  workspace_id: string;
  name: string;
  /** The integration's slug (what create takes). */
  integration_id: string;
  note: string | null;
  status: string;
  usage_limits: Record<string, unknown> | null;
  reset_usage: number | null;
  created_at: string;
  slug: string;
  rate_limits: Record<string, unknown>[] | null;
  expires_at: string | null;
  object: 'provider';
}

export function toProviderView(p: Provider, integrationSlug: string): ProviderView {
  return {
    id: p.id,
    workspace_id: p.workspaceId,
    name: p.name,
    integration_id: integrationSlug,
    note: p.note ?? null,
    status: providerStatus(p),
    usage_limits: p.usageLimits ?? null,
    reset_usage: p.resetUsage ?? null,
    created_at: p.createdAt.toISOString(),
    slug: p.slug,
    rate_limits: p.rateLimits ?? null,
    expires_at: p.expiresAt?.toISOString() ?? null,
    object: 'provider',
  };
}
