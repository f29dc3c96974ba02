// The workspace's data-plane settings (issue 7 item 1; spec: Authentication 9): its default config
// and the organisation's saved-only mode, from the control plane's `workspace` resource (held by
// the ResourceCache, pushed by Watch: a Map lookup per request once held).
import type { ResolvedKey } from '../../src/domain/api-key.ts';
import { looksLikeInlineConfig } from '../../src/domain/config/config-schema.ts';
import { AppError } from '../../src/domain/errors.ts';
import type { ResourceCache } from '../sync/resource-cache.ts';
import type { GatewayHeaders } from './gateway-headers.ts';

export interface WorkspaceSettings {
  blockInlineConfig: boolean;
  defaultConfigId: string | null;
}

const NONE: WorkspaceSettings = { blockInlineConfig: false, defaultConfigId: null };

function fromPayload(p: Record<string, unknown>): WorkspaceSettings {
  return { blockInlineConfig: p.block_inline_config === true, defaultConfigId: typeof p.default_config_id === 'string' ? p.default_config_id : null };
}

/**
 * Null-safe: an organisation key has no workspace; a worker without the resource cache, or one
 * that never reached the control plane for this workspace, routes as if nothing were set (the key
 * itself was verified; static stability wins over a setting it never saw).
 */
export function workspaceSettings(key: ResolvedKey, resources: ResourceCache | undefined): WorkspaceSettings | Promise<WorkspaceSettings> {
  if (!key.workspaceId || !resources) return NONE;
  let got;
  try {
    got = resources.getOrStale('workspace', key.workspaceId);
  } catch {
    return NONE;
  }
  if (got instanceof Promise) return got.then((r) => (r ? fromPayload(r.payload) : NONE), () => NONE);
  return got ? fromPayload(got.payload) : NONE;
}

const savedOnly = (what: string, param: string) =>
  new AppError(403, 'permission_error', 'inline_config_blocked', `This organisation accepts only saved resources: ${what} is not allowed (block_inline_config).`, param);

/** Saved-only mode: no inline config, no provider picked by name or credentials, no custom host. */
export function assertSavedOnly(h: GatewayHeaders): void {
  if (h.config && looksLikeInlineConfig(h.config)) throw savedOnly('an inline config', 'x-gateway-config');
  if (h.customHost) throw savedOnly('a custom host', 'x-gateway-custom-host');
  if (h.provider && !h.provider.startsWith('@')) throw savedOnly('naming a provider (use a managed provider @slug or a saved config)', 'x-gateway-provider');
}
