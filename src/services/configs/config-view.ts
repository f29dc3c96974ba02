import type { Config } from '../../persistence/entities/config.ts';
import type { ConfigVersion } from '../../persistence/entities/config-version.ts';

/** A config list item (control-plane-schemas 2.2). */
export interface ConfigView {
  id: string;
  name: string;
  slug: string;
  organisation_id: string;
  workspace_id: string;
  is_default: number;
  status: string;
  owner_id: string | null;
  updated_by: string | null;
  created_at: string;
  last_updated_at: string;
  version_id: string | null;
  object: 'config';
}

/** `GET /configs/{slug}`: the item plus the current version's body as an object. */
export interface ConfigDetailView extends ConfigView {
  config: Record<string, unknown>;
}

/** A version item: the body as a serialised JSON string. */
export interface ConfigVersionView extends ConfigView {
  version: number;
  config: string;
  format: string;
}

export function toConfigView(c: Config): ConfigView {
  return {
    id: c.id,
    name: c.name,
    slug: c.slug,
    organisation_id: c.organisationId,
    workspace_id: c.workspaceId,
    is_default: c.isDefault,
    status: c.status,
    owner_id: c.ownerId ?? null,
    updated_by: c.updatedBy ?? null,
    created_at: c.createdAt.toISOString(),
    last_updated_at: c.updatedAt.toISOString(),
    version_id: c.currentVersionId ?? null,
    object: 'config',
  };
}

export function toConfigVersionView(c: Config, v: ConfigVersion): ConfigVersionView {
  return { ...toConfigView(c), version_id: v.id, version: v.version, config: JSON.stringify(v.config), format: v.format, created_at: v.createdAt.toISOString() };
}
