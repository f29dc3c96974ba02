// Where a request's config comes from (issue 7 item 1; spec: Request headers, x-gateway-config):
// the caller's x-gateway-config (inline JSON, or a saved config's id or slug), else the API key's
// defaults.config_id. A key with allow_config_override: false refuses a caller's own config.
import type { ResolvedKey } from '../../src/domain/api-key.ts';
import { configFromHeader, looksLikeInlineConfig, parseGatewayConfig, type GatewayConfig } from '../../src/domain/config/config-schema.ts';
import { AppError } from '../../src/domain/errors.ts';
import type { ResolvedResource } from '../../src/domain/sync-codec.ts';
import { ControlPlaneUnavailable } from '../contracts.ts';
import type { ResourceCache } from '../sync/resource-cache.ts';

export interface ConfigChoice {
  config: GatewayConfig;
  /** Names the config for the cache key: the saved config's id and version, or the inline text. */
  identity: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// A saved config is validated once per version held, not once per request.
const parsed = new WeakMap<ResolvedResource, GatewayConfig>();
// The same inline config arrives on every request of a client: parse it once (bounded).
const inline = new Map<string, GatewayConfig>();
const MAX_INLINE = 500;

function inlineConfig(text: string): GatewayConfig {
  let c = inline.get(text);
  if (!c) {
    c = configFromHeader(text);
    if (inline.size >= MAX_INLINE) inline.clear();
    inline.set(text, c);
  }
  return c;
}

const notFound = (ref: string, param: string) => new AppError(400, 'invalid_request_error', 'config_not_found', `No config "${ref}" in this workspace.`, param);

async function saved(ref: string, key: ResolvedKey, resources: ResourceCache | undefined, param: string): Promise<ConfigChoice> {
  if (!resources) throw new AppError(503, 'service_unavailable_error', 'config_directory_unavailable', 'Saved configs cannot be resolved by this worker.');
  if (!key.workspaceId) throw new AppError(400, 'invalid_request_error', 'workspace_required', 'Saved configs belong to a workspace: use a workspace API key.', param);
  let found: ResolvedResource | null;
  try {
    found = await resources.getOrStale('config', UUID.test(ref) ? ref : `${key.workspaceId}:${ref}`);
  } catch (err) {
    if (err instanceof ControlPlaneUnavailable) {
      throw new AppError(503, 'service_unavailable_error', 'control_plane_unavailable', 'The saved config cannot be resolved right now: the control plane is unreachable. Retry shortly.');
    }
    throw err;
  }
  // An id from another workspace is as unknown as a missing one.
  if (!found || found.payload.workspace_id !== key.workspaceId) throw notFound(ref, param);
  let config = parsed.get(found);
  if (!config) {
    config = parseGatewayConfig(found.payload.config, param);
    parsed.set(found, config);
  }
  return { config, identity: `${String(found.payload.id)}@${String(found.payload.version_id ?? found.version)}` };
}

/** The request's config, or null (the plain path: no parse, no lookup). */
export async function resolveConfig(header: string | null, key: ResolvedKey, resources: ResourceCache | undefined): Promise<ConfigChoice | null> {
  const byKey = key.defaults.config_id;
  if (header) {
    if (byKey && key.defaults.allow_config_override === false) {
      throw new AppError(403, 'permission_error', 'config_override_not_allowed', "This API key routes by its own config and does not allow x-gateway-config.", 'x-gateway-config');
    }
    if (looksLikeInlineConfig(header)) return { config: inlineConfig(header), identity: header };
    return saved(header, key, resources, 'x-gateway-config');
  }
  if (byKey) return saved(byKey, key, resources, 'api_key.defaults.config_id');
  return null;
}

/** Can this config call a provider more than once (retries, or several targets)? Then a streamed body is buffered to be re-sent. */
export function mayRetry(node: { retry?: { attempts?: number }; targets?: unknown[]; strategy?: { mode: string } }): boolean {
  if ((node.retry?.attempts ?? 0) > 0) return true;
  const targets = (node.targets ?? []) as (typeof node)[];
  if (node.strategy?.mode === 'fallback' && targets.length > 1) return true;
  return targets.some(mayRetry);
}
