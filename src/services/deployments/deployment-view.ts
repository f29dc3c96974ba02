import type { Deployment } from '../../persistence/entities/deployment.ts';
import { mcpGatewayBase } from './gateway-urls.ts';

/** A deployment answer (control-plane-schemas 2.19; upstream responses are untyped). */
export interface DeploymentView {
  id: string;
  object: 'deployment';
  name: string;
  slug: string;
  organisation_id: string;
  type: string;
  status: string;
  source_type: string | null;
  tags: Record<string, string>;
  deployment_config: Record<string, unknown>;
  auth_settings: Record<string, unknown>;
  is_default: boolean;
  ch_db: string | null;
  owner_id: string | null;
  updated_by: string | null;
  created_at: string;
  last_updated_at: string;
  /** The deployment's own gateway URL, else the configured default (GATEWAY_PUBLIC_URLS). */
  gateway_base_url: string | null;
  mcp_gateway_base_url: string | null;
  /** The password masked unless asked for with include_credentials. */
  credentials: { username: string; password: string } | null;
}

export interface DeploymentPage {
  object: 'list';
  total: number;
  data: DeploymentView[];
  /** Every configured gateway base URL (GATEWAY_PUBLIC_URLS), first the default. */
  gateway_base_urls: string[];
}

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

export function toDeploymentView(d: Deployment, gatewayUrls: readonly string[], password: string | null): DeploymentView {
  return {
    id: d.id,
    object: 'deployment',
    name: d.name,
    slug: d.slug,
    organisation_id: d.organisationId,
    type: d.type,
    status: d.status,
    source_type: d.sourceType ?? null,
    tags: d.tags,
    deployment_config: d.deploymentConfig,
    auth_settings: d.authSettings,
    is_default: d.isDefault,
    ch_db: d.chDb ?? null,
    owner_id: d.ownerId ?? null,
    updated_by: d.updatedBy ?? null,
    created_at: d.createdAt.toISOString(),
    last_updated_at: d.updatedAt.toISOString(),
    gateway_base_url: str(d.authSettings.gateway_base_url) ?? gatewayUrls[0] ?? null,
    mcp_gateway_base_url: str(d.authSettings.mcp_gateway_base_url) ?? mcpGatewayBase(gatewayUrls),
    credentials: d.credentialsUsername ? { username: d.credentialsUsername, password: password ?? '********' } : null,
  };
}
