import type { Provider } from '../../persistence/entities/provider.ts';
import { providerStatus } from './provider-view.ts';

/** The VirtualKey object (control-plane-schemas 2.6), plus `id`, `workspace_id`, `provider` and the masked key. */
export interface VirtualKeyView {
  id: string;
  workspace_id: string;
  name: string;
  provider: string;
  masked_key: string | null;
  note: string | null;
  status: string;
  usage_limits: Record<string, unknown> | null;
  reset_usage: number | null;
  created_at: string;
  slug: string;
  model_config: Record<string, unknown>;
  rate_limits: Record<string, unknown>[] | null;
  expires_at: string | null;
  secret_mappings: Record<string, unknown>[] | null;
  object: 'virtual-key';
}

export function toVirtualKeyView(p: Provider): VirtualKeyView {
  return {
    id: p.id,
    workspace_id: p.workspaceId,
    name: p.name,
    provider: p.aiProviderId ?? '',
    masked_key: p.keyMask ?? null,
    note: p.note ?? null,
    status: providerStatus(p),
    usage_limits: p.usageLimits ?? null,
    reset_usage: p.resetUsage ?? null,
    created_at: p.createdAt.toISOString(),
    slug: p.slug,
    model_config: p.modelConfig ?? {},
    rate_limits: p.rateLimits ?? null,
    expires_at: p.expiresAt?.toISOString() ?? null,
    secret_mappings: p.secretMappings ?? null,
    object: 'virtual-key',
  };
}
