import type { ResolvedKey } from '../../src/domain/api-key.ts';
import { type ConfigNode, type GatewayConfig, type NodeSettings } from '../../src/domain/config/config-schema.ts';
import { AppError, invalidParameter } from '../../src/domain/errors.ts';
import { checkCustomHost, type TrustedHosts } from '../../src/domain/net/custom-host.ts';
import { ControlPlaneUnavailable } from '../contracts.ts';
import type { ProviderDirectory } from '../providers/directory.ts';
import type { ProviderAdapter, ProviderCredentials } from '../providers/contract.ts';
import { findProvider, keyOptional, providerNames } from '../providers/registry.ts';
import type { GatewayHeaders } from './gateway-headers.ts';

/** One provider to call and how: what the routing engine walks, one per leaf of a config. */
export interface Target {
  provider: ProviderAdapter;
  credentials: ProviderCredentials;
  /** SSRF-checked, no trailing slash; replaces the provider's base URL exactly. */
  customHost?: string;
  /** Caller headers forwarded as given (x-gateway-forward-headers, config forward_headers). */
  forwardHeaders: string[];
  /** Config override_params, shallow-merged over a JSON body. */
  overrideParams?: Record<string, unknown>;
  requestTimeoutMs?: number;
  /** Where the target sits in the config (`config.targets[0]`), for x-gateway-last-used-option-index. */
  optionIndex?: string;
  /** A managed provider's custom headers (integration `custom_headers`), sent on every call. */
  extraHeaders?: Record<string, string>;
}

export interface ResolvedTargets {
  targets: Target[];
  config: GatewayConfig | null;
}

export interface TargetDeps {
  trustedHosts: TrustedHosts;
  providers?: ProviderDirectory | undefined;
}

// The same few custom hosts arrive on every request: remember each verdict (bounded), per
// trusted-host list since that changes the verdict.
const verdicts = new WeakMap<TrustedHosts, Map<string, string | AppError>>();
const MAX_CHECKED_HOSTS = 1_000;

/** Every custom host (header, config, managed provider) goes through here (spec: Errors, unsafe custom hosts). */
export function checkedHost(raw: string, trusted: TrustedHosts, param = 'x-gateway-custom-host'): string {
  let checkedHosts = verdicts.get(trusted);
  if (!checkedHosts) verdicts.set(trusted, (checkedHosts = new Map()));
  const cacheKey = `${param}\n${raw}`;
  let verdict = checkedHosts.get(cacheKey);
  if (verdict === undefined) {
    const checked = checkCustomHost(raw, trusted, param);
    verdict = checked instanceof AppError ? checked : checked.href.replace(/\/+$/, '');
    if (checkedHosts.size >= MAX_CHECKED_HOSTS) checkedHosts.clear();
    checkedHosts.set(cacheKey, verdict);
  }
  if (verdict instanceof AppError) throw verdict;
  return verdict;
}

function adapterFor(name: string, param: string): ProviderAdapter {
  const provider = findProvider(name);
  if (!provider) throw invalidParameter(param, `Unknown provider "${name}". Supported: ${providerNames().join(', ')}`);
  return provider;
}

function hasPlatformCredentials(c: ProviderCredentials): boolean {
  return Boolean(c.accessToken || c.awsAccessKeyId || c.vertexServiceAccountJson);
}

function requireKey(provider: ProviderAdapter, c: ProviderCredentials, param: string): void {
  if (c.apiKey || hasPlatformCredentials(c) || keyOptional(provider.name)) return;
  throw new AppError(400, 'invalid_request_error', 'missing_provider_key', `Send the ${provider.name} key as Authorization: Bearer <key>, with the gateway key in x-gateway-api-key.`, param);
}

async function managed(slug: string, key: ResolvedKey, deps: TargetDeps, param: string): Promise<{ provider: ProviderAdapter; credentials: ProviderCredentials; customHost?: string; extraHeaders?: Record<string, string> }> {
  if (!deps.providers) throw new AppError(503, 'service_unavailable_error', 'provider_directory_unavailable', 'Managed providers cannot be resolved by this worker.');
  if (!key.workspaceId) throw invalidParameter(param, 'Managed providers belong to a workspace: use a workspace API key.');
  let found;
  try {
    found = await deps.providers.resolveProvider(key.workspaceId, slug);
  } catch (err) {
    if (err instanceof ControlPlaneUnavailable) {
      throw new AppError(503, 'service_unavailable_error', 'control_plane_unavailable', 'The managed provider cannot be resolved right now: the control plane is unreachable. Retry shortly.');
    }
    throw err;
  }
  if (!found) throw new AppError(400, 'invalid_request_error', 'provider_not_found', `No provider "@${slug}" in this workspace.`, param);
  const provider = adapterFor(found.provider, param);
  return {
    provider,
    credentials: found.credentials,
    ...(found.customHost ? { customHost: checkedHost(found.customHost, deps.trustedHosts, param) } : {}),
    ...(found.customHeaders ? { extraHeaders: found.customHeaders } : {}),
  };
}

// A config leaf's provider-specific keys (reference gateway: snake_case, and the non-schema
// Azure keys) in the adapter contract's names.
const CONFIG_CREDENTIALS: [keyof ProviderCredentials, string[]][] = [
  ['azureResourceName', ['resource_name', 'azure_resource_name']],
  ['azureDeploymentId', ['deployment_id', 'azure_deployment_id']],
  ['azureApiVersion', ['api_version', 'azure_api_version']],
  ['azureModelName', ['azure_model_name']],
  ['accessToken', ['azure_ad_token']],
  ['vertexProjectId', ['vertex_project_id']],
  ['vertexRegion', ['vertex_region']],
  ['vertexServiceAccountJson', ['vertex_service_account_json']],
  ['awsAccessKeyId', ['aws_access_key_id']],
  ['awsSecretAccessKey', ['aws_secret_access_key']],
  ['awsSessionToken', ['aws_session_token']],
  ['awsRegion', ['aws_region']],
];

function configCredentials(node: ConfigNode): ProviderCredentials {
  const c: ProviderCredentials = {};
  if (typeof node.api_key === 'string' && node.api_key) c.apiKey = node.api_key;
  const raw = node as Record<string, unknown>;
  for (const [field, names] of CONFIG_CREDENTIALS) {
    for (const n of names) {
      const v = raw[n];
      if (v === undefined || v === null || v === '') continue;
      c[field] = typeof v === 'string' ? v : JSON.stringify(v);
      break;
    }
  }
  return c;
}

/** Settings inherited down the tree, child wins (reference gateway: override_params merge). */
interface Inherited {
  overrideParams?: Record<string, unknown>;
  customHost?: string;
  forwardHeaders?: string[];
  requestTimeoutMs?: number;
}

function inherit(parent: Inherited, node: ConfigNode): Inherited {
  const out: Inherited = { ...parent };
  if (node.override_params) out.overrideParams = { ...parent.overrideParams, ...node.override_params };
  if (node.custom_host) out.customHost = node.custom_host;
  if (node.forward_headers) out.forwardHeaders = node.forward_headers;
  if (node.request_timeout !== undefined) out.requestTimeoutMs = node.request_timeout;
  return out;
}

/**
 * The leaves of a config in order, each with its inherited settings. Strategies (fallback,
 * loadbalance, conditional) are the routing engine's; it picks among these.
 */
function leaves(node: ConfigNode, parent: Inherited, path: string, out: { node: ConfigNode; settings: Inherited; path: string }[]): void {
  const settings = inherit(parent, node);
  if (node.targets?.length) {
    node.targets.forEach((t, i) => leaves(t, settings, `${path}.targets[${i}]`, out));
    return;
  }
  out.push({ node, settings, path });
}

async function configTarget(leaf: { node: ConfigNode; settings: Inherited; path: string }, h: GatewayHeaders, key: ResolvedKey, deps: TargetDeps): Promise<Target> {
  const { node, settings } = leaf;
  const param = 'x-gateway-config';
  const forwardHeaders = [...(settings.forwardHeaders ?? []), ...h.forwardHeaders];
  const timeoutMs = h.requestTimeoutMs ?? settings.requestTimeoutMs;
  const common = {
    forwardHeaders,
    optionIndex: leaf.path,
    ...(settings.overrideParams ? { overrideParams: settings.overrideParams } : {}),
    ...(timeoutMs ? { requestTimeoutMs: timeoutMs } : {}),
  };
  const slug = node.provider?.startsWith('@') ? node.provider.slice(1) : node.virtual_key;
  if (slug) {
    // A managed provider's key never goes to a host the caller chose.
    if (settings.customHost) throw invalidParameter(param, 'custom_host cannot be combined with a managed provider');
    const m = await managed(slug, key, deps, param);
    return { ...m, ...common };
  }
  const providerName = node.provider ?? h.provider;
  if (!providerName) throw new AppError(400, 'invalid_request_error', 'missing_provider', 'The config target names no provider.', param);
  const provider = adapterFor(providerName, param);
  const credentials = { ...h.credentialsFor(provider.name), ...configCredentials(node) };
  requireKey(provider, credentials, param);
  const customHost = settings.customHost ? checkedHost(settings.customHost, deps.trustedHosts, `${param}: custom_host`) : h.customHost ? checkedHost(h.customHost, deps.trustedHosts) : undefined;
  return { provider, credentials, ...(customHost ? { customHost } : {}), ...common };
}

/**
 * One leaf the routing engine chose, as a Target: built only when the engine calls it, so a
 * managed provider is resolved only for the target actually tried (issue 7 item 2).
 */
export function leafTarget(leaf: { node: ConfigNode; settings: NodeSettings; path: string }, h: GatewayHeaders, key: ResolvedKey, deps: TargetDeps): Promise<Target> {
  const s = leaf.settings;
  const settings: Inherited = {
    ...(s.override_params ? { overrideParams: s.override_params } : {}),
    ...(s.custom_host ? { customHost: s.custom_host } : {}),
    ...(s.forward_headers ? { forwardHeaders: s.forward_headers } : {}),
    ...(s.request_timeout !== undefined ? { requestTimeoutMs: s.request_timeout } : {}),
  };
  return configTarget({ node: leaf.node, settings, path: leaf.path }, h, key, deps);
}

/**
 * ARCHITECTURE.md request flow, step 3 (spec: Authentication 2, the four combinations): a managed
 * provider slug or legacy virtual key; provider + Authorization; a config carrying provider
 * details; custom host + provider + Authorization.
 */
export async function resolveTargets(h: GatewayHeaders, key: ResolvedKey, deps: TargetDeps, config: GatewayConfig | null = null): Promise<ResolvedTargets> {
  if (config) {
    const found: { node: ConfigNode; settings: Inherited; path: string }[] = [];
    leaves(config, {}, 'config', found);
    const targets = [];
    for (const leaf of found) targets.push(await configTarget(leaf, h, key, deps));
    return { targets, config };
  }
  const base = { forwardHeaders: h.forwardHeaders, ...(h.requestTimeoutMs ? { requestTimeoutMs: h.requestTimeoutMs } : {}) };
  const slug = h.provider?.startsWith('@') ? h.provider.slice(1) : h.virtualKey;
  if (slug) {
    if (h.customHost) throw invalidParameter('x-gateway-custom-host', 'x-gateway-custom-host cannot be combined with a managed provider');
    const m = await managed(slug, key, deps, h.provider?.startsWith('@') ? 'x-gateway-provider' : 'x-gateway-virtual-key');
    // Platform headers may name what the stored provider leaves open (a deployment, a version).
    return { targets: [{ ...m, credentials: { ...withoutKey(h.credentialsFor(m.provider.name)), ...m.credentials }, ...base }], config: null };
  }
  if (!h.provider) {
    throw new AppError(400, 'invalid_request_error', 'missing_provider', 'Name the provider in x-gateway-provider (with Authorization: Bearer <provider key>), a managed provider as @slug, or send a config.', 'x-gateway-provider');
  }
  const provider = adapterFor(h.provider, 'x-gateway-provider');
  const credentials = h.credentialsFor(provider.name);
  requireKey(provider, credentials, 'authorization');
  const customHost = h.customHost ? checkedHost(h.customHost, deps.trustedHosts) : undefined;
  return { targets: [{ provider, credentials, ...(customHost ? { customHost } : {}), ...base }], config: null };
}

function withoutKey(c: ProviderCredentials): ProviderCredentials {
  const { apiKey: _k, accessToken: _t, awsAccessKeyId: _a, awsSecretAccessKey: _s, awsSessionToken: _st, vertexServiceAccountJson: _v, ...rest } = c;
  return rest;
}
