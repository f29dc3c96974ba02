// Provider credentials of an integration (control-plane-schemas 2.4 "configurations variants";
// gateway-spec "Integration (list item)": auth types `wif`, `oauthClientCredentials`, cloud role /
// service role / api key with region / workload). Pure: which fields each provider kind takes,
// which of them are secrets (sealed at rest, masked in answers), and the masks.
import { z } from 'zod';
import { customHostSchema } from '../config/config-schema.ts';

export const SLUG_PATTERN = /^[a-zA-Z0-9_-]+$/;
/** Names and slugs of integrations and providers (spec, Limits). */
export const MAX_NAME = 255;

const str = z.string().min(1).max(2048);
const apiVersion = z.string().min(1).max(30);

/**
 * Combinable with every variant: a custom base URL and extra headers sent upstream. The URL's
 * shape is checked as in configs; the private/reserved address check runs in the worker at call
 * time, against its TRUSTED_CUSTOM_HOSTS (as for config custom_host).
 */
const customHostFields = {
  custom_host: customHostSchema.pipe(z.string().max(2048)).optional(),
  custom_headers: z.record(z.string(), z.string().max(8192)).optional(),
};

/**
 * OAuth 2.0 client credentials (gateway-spec: `oauthClientCredentials`, four fields, the secret
 * masked). The spec does not name the field that selects it; `auth_type` is ours.
 */
const oauthFields = {
  auth_type: z.enum(['apiKey', 'oauthClientCredentials']).optional(),
  oauth_token_endpoint: z.url({ protocol: /^https?$/ }).max(2048).optional(),
  oauth_client_id: str.optional(),
  oauth_client_secret: str.optional(),
  oauth_scope: z.string().max(1024).optional(),
};

const entraFields = {
  azure_auth_mode: z.enum(['default', 'entra', 'managed']),
  azure_entra_tenant_id: str.optional(),
  azure_entra_client_id: str.optional(),
  azure_entra_client_secret: str.optional(),
  azure_managed_client_id: str.optional(),
};

const awsFields = {
  /** accessKey: static keys; assumedRole: a role the gateway assumes; serviceRole: the gateway's own (workload) role. */
  aws_auth_type: z.enum(['accessKey', 'assumedRole', 'serviceRole']),
  aws_region: z.string().min(1).max(64),
  aws_access_key_id: str.optional(),
  aws_secret_access_key: str.optional(),
  aws_session_token: str.optional(),
  aws_role_arn: str.optional(),
  aws_external_id: str.nullish(),
};

const deployment = z.strictObject({
  alias: z.string().max(255).optional(),
  azure_api_version: apiVersion,
  azure_deployment_name: z.string().min(1).max(255),
  is_default: z.boolean().optional(),
  azure_model_slug: z.string().min(1).max(255),
});

const openai = z.strictObject({ openai_organization: str.optional(), openai_project: str.optional(), ...oauthFields, ...customHostFields });

const azureOpenai = z.strictObject({
  ...entraFields,
  azure_resource_name: z.string().min(1).max(255),
  azure_deployment_config: z.array(deployment).min(1),
  ...customHostFields,
});

const bedrock = z.strictObject({ ...awsFields, ...customHostFields });

const SAGEMAKER_EXTRA = ['custom_attributes', 'target_model', 'target_variant', 'target_container_hostname', 'inference_id', 'enable_explanations', 'inference_component', 'session_id', 'model_name'];
const sagemaker = z.strictObject({
  ...awsFields,
  ...Object.fromEntries(SAGEMAKER_EXTRA.map((f) => [`amzn_sagemaker_${f}`, z.string().max(2048).optional()])),
  ...customHostFields,
});

const vertex = z.strictObject({
  /** basic: project + key; serviceAccount: a key file; wif: workload identity federation (no stored secret). */
  vertex_auth_type: z.enum(['basic', 'serviceAccount', 'wif']),
  vertex_region: z.string().min(1).max(64),
  vertex_project_id: z.string().min(1).max(255).optional(),
  vertex_service_account_json: z.record(z.string(), z.unknown()).optional(),
  ...customHostFields,
});

const azureFoundry = z.strictObject({
  ...entraFields,
  azure_foundry_url: z.url({ protocol: /^https?$/ }).max(2048),
  azure_api_version: apiVersion.optional(),
  azure_deployment_name: z.string().min(1).max(255).optional(),
  ...customHostFields,
});

const workersAi = z.strictObject({ workers_ai_account_id: z.string().min(1).max(255), ...customHostFields });
const huggingface = z.strictObject({ huggingface_base_url: z.url({ protocol: /^https?$/ }).max(2048).optional(), ...customHostFields });
const cortex = z.strictObject({ snowflake_account: z.string().min(1).max(255), ...customHostFields });
/** Every other provider: a key, optionally OAuth client credentials, and a custom host. */
const generic = z.strictObject({ ...oauthFields, ...customHostFields });

type Variant = z.ZodType<Record<string, unknown>>;

/** ai_provider_id → its configurations variant (ids as the reference gateway spells them). */
const VARIANTS: Record<string, Variant> = {
  openai: openai as Variant,
  'azure-openai': azureOpenai as Variant,
  bedrock: bedrock as Variant,
  sagemaker: sagemaker as Variant,
  'vertex-ai': vertex as Variant,
  'azure-ai': azureFoundry as Variant,
  'workers-ai': workersAi as Variant,
  huggingface: huggingface as Variant,
  cortex: cortex as Variant,
};

export const variantOf = (aiProviderId: string): Variant => VARIANTS[aiProviderId] ?? (generic as Variant);

/** Fields of `configurations` sealed at rest and answered only as `masked_<field>`. */
export const SECRET_CONFIGURATION_FIELDS = [
  'azure_entra_client_secret',
  'aws_access_key_id',
  'aws_secret_access_key',
  'aws_session_token',
  'vertex_service_account_json',
  'oauth_client_secret',
] as const;
const SECRET_SET = new Set<string>(SECRET_CONFIGURATION_FIELDS);
export const isSecretField = (field: string): boolean => SECRET_SET.has(field);

/** Cross-field rules of each auth type: what it needs, as a list of [field, message]. */
export function authTypeIssues(c: Record<string, unknown>): [string, string][] {
  const out: [string, string][] = [];
  const need = (field: string, why: string) => {
    if (c[field] === undefined || c[field] === null) out.push([field, `required when ${why}`]);
  };
  if (c.azure_auth_mode === 'entra') {
    need('azure_entra_tenant_id', 'azure_auth_mode is entra');
    need('azure_entra_client_id', 'azure_auth_mode is entra');
    need('azure_entra_client_secret', 'azure_auth_mode is entra');
  }
  if (c.aws_auth_type === 'accessKey') {
    need('aws_access_key_id', 'aws_auth_type is accessKey');
    need('aws_secret_access_key', 'aws_auth_type is accessKey');
  }
  if (c.aws_auth_type === 'assumedRole') need('aws_role_arn', 'aws_auth_type is assumedRole');
  if (c.vertex_auth_type === 'basic') need('vertex_project_id', 'vertex_auth_type is basic');
  if (c.vertex_auth_type === 'serviceAccount') need('vertex_service_account_json', 'vertex_auth_type is serviceAccount');
  if (c.vertex_auth_type === 'wif') need('vertex_project_id', 'vertex_auth_type is wif');
  if (c.auth_type === 'oauthClientCredentials') {
    need('oauth_token_endpoint', 'auth_type is oauthClientCredentials');
    need('oauth_client_id', 'auth_type is oauthClientCredentials');
    need('oauth_client_secret', 'auth_type is oauthClientCredentials');
  }
  const deployments = c.azure_deployment_config as { is_default?: boolean }[] | undefined;
  if (deployments && deployments.filter((d) => d.is_default).length > 1) out.push(['azure_deployment_config', 'at most one deployment may be is_default']);
  return out;
}

/** `configurations` split into what is stored in clear and what is sealed. */
export function splitSecrets(c: Record<string, unknown>): { plain: Record<string, unknown>; secret: Record<string, unknown> } {
  const plain: Record<string, unknown> = {};
  const secret: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(c)) (isSecretField(k) ? secret : plain)[k] = v;
  return { plain, secret };
}

/** `Xk*******S4` like API keys; short values are all stars, so nothing of them shows. */
export function maskSecret(value: string): string {
  if (value.length < 12) return '*'.repeat(Math.max(value.length, 4));
  return `${value.slice(0, 2)}${'*'.repeat(Math.min(value.length - 4, 20))}${value.slice(-2)}`;
}

/** A secret field in an answer: `masked_<field>`; a key file shows only which account it is. */
export function maskedSecretFields(secret: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(secret)) {
    if (v === undefined || v === null) continue;
    if (typeof v === 'string') out[`masked_${k}`] = maskSecret(v);
    else {
      const email = (v as Record<string, unknown>).client_email;
      out[`masked_${k}`] = { type: (v as Record<string, unknown>).type ?? null, client_email: typeof email === 'string' ? email : null, private_key: '********' };
    }
  }
  return out;
}
