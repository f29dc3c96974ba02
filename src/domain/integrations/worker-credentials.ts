// What a worker needs to call a provider, from an integration's stored configuration or a
// virtual key's model_config (issue 4 item 10), in the adapters' ProviderCredentials. Auth types
// with no field there (Entra client credentials, an AWS role to assume, OAuth client credentials,
// workload identity) travel in `auth` for the worker to exchange for a token.

import type { ProviderCredentials } from '../provider-credentials.ts';

export type WorkerCredentials = ProviderCredentials;

export interface WorkerAuth {
  /** `apiKey`, `entra`, `managed`, `default`, `accessKey`, `assumedRole`, `serviceRole`, `basic`, `serviceAccount`, `wif`, `oauthClientCredentials`. */
  type: string;
  [field: string]: unknown;
}

export interface WorkerProviderTarget {
  /** The adapter id (workers/providers/<id>): `openai`, `azure-openai`, `bedrock`, `vertex-ai`, ... */
  provider: string;
  credentials: WorkerCredentials;
  auth: WorkerAuth;
  custom_host: string | null;
  custom_headers: Record<string, string> | null;
  /** Provider-specific options that are neither credentials nor host (e.g. Azure deployments, OpenAI organisation). */
  options: Record<string, unknown>;
}

/** Provider ids spelled two ways upstream. */
const ADAPTER_ALIASES: Record<string, string> = { 'open-ai': 'openai' };
export const adapterId = (aiProviderId: string): string => ADAPTER_ALIASES[aiProviderId] ?? aiProviderId;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function compact<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

interface AzureDeployment {
  alias?: string;
  azure_api_version?: string;
  azure_deployment_name?: string;
  azure_model_slug?: string;
  is_default?: boolean;
}

/** An integration: `key` plus its full (decrypted) `configurations`. */
export function integrationTarget(aiProviderId: string, key: string | null, c: Record<string, unknown>): WorkerProviderTarget {
  const provider = adapterId(aiProviderId);
  const credentials: WorkerCredentials = { apiKey: key ?? undefined };
  let auth: WorkerAuth = { type: 'apiKey' };
  const options: Record<string, unknown> = {};
  const taken = new Set(['custom_host', 'custom_headers']);
  const use = (...fields: string[]) => fields.forEach((f) => taken.add(f));

  if (c.azure_auth_mode !== undefined) {
    use('azure_auth_mode', 'azure_entra_tenant_id', 'azure_entra_client_id', 'azure_entra_client_secret', 'azure_managed_client_id');
    auth = compact({
      type: String(c.azure_auth_mode),
      tenant_id: str(c.azure_entra_tenant_id),
      client_id: str(c.azure_entra_client_id) ?? str(c.azure_managed_client_id),
      client_secret: str(c.azure_entra_client_secret),
    });
    if (c.azure_auth_mode === 'default' && key) auth = { type: 'apiKey' };
  }
  if (c.azure_resource_name !== undefined) {
    use('azure_resource_name', 'azure_deployment_config');
    credentials.azureResourceName = str(c.azure_resource_name);
    const deployments = (c.azure_deployment_config as AzureDeployment[] | undefined) ?? [];
    const chosen = deployments.find((d) => d.is_default) ?? deployments[0];
    if (chosen) {
      credentials.azureDeploymentId = chosen.azure_deployment_name;
      credentials.azureApiVersion = chosen.azure_api_version;
      credentials.azureModelName = chosen.azure_model_slug;
    }
    options.azure_deployments = deployments;
  }
  if (c.azure_foundry_url !== undefined) {
    use('azure_foundry_url', 'azure_api_version', 'azure_deployment_name');
    options.azure_foundry_url = c.azure_foundry_url;
    credentials.azureApiVersion = str(c.azure_api_version);
    credentials.azureDeploymentId = str(c.azure_deployment_name);
  }
  if (c.aws_auth_type !== undefined) {
    use('aws_auth_type', 'aws_region', 'aws_access_key_id', 'aws_secret_access_key', 'aws_session_token', 'aws_role_arn', 'aws_external_id');
    credentials.awsRegion = str(c.aws_region);
    credentials.awsAccessKeyId = str(c.aws_access_key_id);
    credentials.awsSecretAccessKey = str(c.aws_secret_access_key);
    credentials.awsSessionToken = str(c.aws_session_token);
    auth = compact({ type: String(c.aws_auth_type), role_arn: str(c.aws_role_arn), external_id: str(c.aws_external_id) });
  }
  if (c.vertex_auth_type !== undefined) {
    use('vertex_auth_type', 'vertex_region', 'vertex_project_id', 'vertex_service_account_json');
    credentials.vertexRegion = str(c.vertex_region);
    credentials.vertexProjectId = str(c.vertex_project_id);
    if (c.vertex_service_account_json) credentials.vertexServiceAccountJson = JSON.stringify(c.vertex_service_account_json);
    auth = { type: String(c.vertex_auth_type) };
  }
  if (c.auth_type === 'oauthClientCredentials') {
    auth = compact({
      type: 'oauthClientCredentials',
      token_endpoint: str(c.oauth_token_endpoint),
      client_id: str(c.oauth_client_id),
      client_secret: str(c.oauth_client_secret),
      scope: str(c.oauth_scope),
    });
  }
  use('auth_type', 'oauth_token_endpoint', 'oauth_client_id', 'oauth_client_secret', 'oauth_scope');
  // Everything else (openai_organization, workers_ai_account_id, snowflake_account, sagemaker ...) is an option.
  for (const [k, v] of Object.entries(c)) if (!taken.has(k)) options[k] = v;
  return {
    provider,
    credentials: compact(credentials),
    auth,
    custom_host: str(c.custom_host) ?? null,
    custom_headers: (c.custom_headers as Record<string, string> | undefined) ?? null,
    options,
  };
}

interface VirtualKeyDeployment {
  apiVersion?: string;
  alias?: string;
  is_default?: boolean;
  deploymentName?: string;
}

/** A legacy virtual key: its provider, key and Azure-style model_config (camelCase). */
export function virtualKeyTarget(aiProviderId: string, key: string | null, modelConfig: Record<string, unknown>): WorkerProviderTarget {
  const deployments = (modelConfig.deploymentConfig as VirtualKeyDeployment[] | undefined) ?? [];
  const chosen = deployments.find((d) => d.is_default) ?? deployments[0];
  const credentials: WorkerCredentials = compact({
    apiKey: key ?? undefined,
    azureResourceName: str(modelConfig.resourceName),
    azureDeploymentId: str(modelConfig.deploymentName) ?? chosen?.deploymentName,
    azureApiVersion: str(modelConfig.apiVersion) ?? chosen?.apiVersion,
  });
  return {
    provider: adapterId(aiProviderId),
    credentials,
    auth: { type: 'apiKey' },
    custom_host: null,
    custom_headers: null,
    options: deployments.length ? { azure_deployments: deployments } : {},
  };
}
