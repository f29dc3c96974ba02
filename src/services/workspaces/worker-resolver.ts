// What workers need to know about a workspace (issue 5 item 1, "workspace settings"): its slug
// (policy conditions may name it), the organisation's saved-only switch (block_inline_config),
// and its default config (issue 7: a workspace default applies when a request names none).
import type { EntityManager } from '@mikro-orm/postgresql';
import { latestChangeVersion, type WorkerResolver } from '../sync/worker-resolver.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const WORKSPACE_RESOURCE = 'workspace';

interface Row {
  id: string;
  slug: string;
  organisation_id: string;
  org_settings: Record<string, unknown> | string;
  default_config_id: string | null;
}

export const workspaceWorkerResolver: WorkerResolver = {
  type: WORKSPACE_RESOURCE,
  async resolve(em: EntityManager, key: string) {
    if (!UUID.test(key)) return null;
    const version = await latestChangeVersion(em, WORKSPACE_RESOURCE, key);
    const [row] = await em.getConnection().execute<Row[]>(
      `select w.id, w.slug, w.organisation_id, o.settings as org_settings,
              (select c.id from config c where c.workspace_id = w.id and c.is_default = 1 and c.deleted_at is null limit 1) as default_config_id
         from workspace w join organisation o on o.id = w.organisation_id
        where w.id = ?`,
      [key],
    );
    if (!row) return null;
    const settings = (typeof row.org_settings === 'string' ? JSON.parse(row.org_settings) : row.org_settings) as Record<string, unknown>;
    return {
      version,
      payload: {
        id: row.id,
        slug: row.slug,
        organisation_id: row.organisation_id,
        block_inline_config: settings.block_inline_config === true,
        default_config_id: row.default_config_id,
      },
    };
  },
};
