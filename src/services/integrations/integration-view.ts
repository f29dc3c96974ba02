import type { SecretBox } from '../../platform/secret-box.ts';
import type { Integration } from '../../persistence/entities/integration.ts';
import { maskedConfigurations } from './integration-secrets.ts';

/** An integration list item (control-plane-schemas 2.4; gateway-spec "Integration (list item)"). */
export interface IntegrationView {
  id: string;
  organisation_id: string;
  /** null for an organisation integration; set for a workspace-scoped one. */
  workspace_id: string | null;
  ai_provider_id: string;
  name: string;
  status: string;
  created_at: string;
  last_updated_at: string;
  slug: string;
  description: string | null;
  object: 'integration';
}

/** `GET /integrations/{slug}`: secrets only masked. */
export interface IntegrationDetailView extends IntegrationView {
  masked_key: string | null;
  configurations: Record<string, unknown>;
  global_workspace_access_settings: Record<string, unknown> | null;
  allow_all_models: boolean;
  workspace_count: number;
  secret_mappings: Record<string, unknown>[] | null;
  pricing_adjustments: Record<string, unknown> | null;
}

export function toIntegrationView(i: Integration): IntegrationView {
  return {
    id: i.id,
    organisation_id: i.organisationId,
    workspace_id: i.workspaceId ?? null,
    ai_provider_id: i.aiProviderId,
    name: i.name,
    status: i.status,
    created_at: i.createdAt.toISOString(),
    last_updated_at: i.updatedAt.toISOString(),
    slug: i.slug,
    description: i.description ?? null,
    object: 'integration',
  };
}

export function toIntegrationDetailView(box: SecretBox, i: Integration, workspaceCount: number): IntegrationDetailView {
  return {
    ...toIntegrationView(i),
    masked_key: i.keyMask ?? null,
    configurations: maskedConfigurations(box, i),
    global_workspace_access_settings: i.globalWorkspaceAccess ?? null,
    allow_all_models: i.allowAllModels,
    workspace_count: workspaceCount,
    secret_mappings: i.secretMappings ?? null,
    pricing_adjustments: i.pricingAdjustments ?? null,
  };
}
