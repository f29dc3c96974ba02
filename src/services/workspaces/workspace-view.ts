import type { Workspace } from '../../persistence/entities/workspace.ts';
import { settingsView, WORKSPACE_SETTING_KEYS } from '../organisation/settings.ts';

/** The stored `defaults` of a workspace (jsonb). */
export interface StoredWorkspaceDefaults {
  metadata?: Record<string, string>;
  input_guardrails?: string[];
  output_guardrails?: string[];
  user_api_key_config?: string;
}

export interface WorkspaceDefaultsView {
  metadata: Record<string, string>;
  is_default: 0 | 1;
  input_guardrails: string[];
  output_guardrails: string[];
  user_api_key_config: string | null;
  object: 'workspace';
}

/** The Workspace object (control-plane-schemas 2.7); get adds `users` (resolved separately). */
export interface WorkspaceView {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  created_at: string;
  last_updated_at: string;
  defaults: WorkspaceDefaultsView;
  settings: Record<string, unknown>;
  usage_limits: Record<string, unknown>[];
  rate_limits: Record<string, unknown>[];
  status: string;
  object: 'workspace';
  /** For resolvers: not part of the answer. */
  organisation_id: string;
}

export function toWorkspaceView(ws: Workspace): WorkspaceView {
  const d = (ws.defaults ?? {}) as StoredWorkspaceDefaults;
  return {
    id: ws.id,
    slug: ws.slug,
    name: ws.name,
    description: ws.description ?? null,
    created_at: ws.createdAt.toISOString(),
    last_updated_at: ws.updatedAt.toISOString(),
    defaults: {
      metadata: d.metadata ?? {},
      is_default: ws.isDefault ? 1 : 0,
      input_guardrails: d.input_guardrails ?? [],
      output_guardrails: d.output_guardrails ?? [],
      user_api_key_config: d.user_api_key_config ?? null,
      object: 'workspace',
    },
    settings: settingsView(ws.settings, WORKSPACE_SETTING_KEYS),
    usage_limits: ws.usageLimits ?? [],
    rate_limits: ws.rateLimits ?? [],
    status: ws.status,
    object: 'workspace',
    organisation_id: ws.organisationId,
  };
}
