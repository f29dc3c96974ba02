import type { EntityManager } from '@mikro-orm/postgresql';
import { latestChangeVersion, type WorkerResolver } from '../sync/worker-resolver.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Row {
  id: string;
  organisation_id: string;
  workspace_id: string;
  slug: string;
  name: string;
  is_default: number;
  version_id: string | null;
  version: number | null;
  config: unknown;
}

/**
 * A saved config as workers route by it (issue 7 item 1): keys `<id>` and `<workspace_id>:<slug>`,
 * exactly as the config_resource_change trigger (migration 0006) writes them.
 */
export const configWorkerResolver: WorkerResolver = {
  type: 'config',
  async resolve(em: EntityManager, key: string) {
    const colon = key.indexOf(':');
    let where: string;
    let params: string[];
    if (colon > 0) {
      const workspaceId = key.slice(0, colon);
      if (!UUID.test(workspaceId)) return null;
      where = 'c.workspace_id = ? and c.slug = ?';
      params = [workspaceId, key.slice(colon + 1)];
    } else {
      if (!UUID.test(key)) return null;
      where = 'c.id = ?';
      params = [key];
    }
    const [row] = await em.getConnection().execute<Row[]>(
      `select c.id, c.organisation_id, c.workspace_id, c.slug, c.name, c.is_default, v.id as version_id, v.version, v.config
         from config c left join config_version v on v.id = c.current_version_id
        where ${where} and c.deleted_at is null`,
      params,
    );
    if (!row || row.config == null) return null;
    return {
      version: await latestChangeVersion(em, 'config', key),
      payload: {
        id: row.id,
        organisation_id: row.organisation_id,
        workspace_id: row.workspace_id,
        slug: row.slug,
        name: row.name,
        is_default: row.is_default === 1,
        version_id: row.version_id,
        version: row.version,
        config: typeof row.config === 'string' ? (JSON.parse(row.config) as unknown) : row.config,
      },
    };
  },
};
