import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkspaceSchema } from '../../persistence/entities/index.ts';
import type { Workspace } from '../../persistence/entities/workspace.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Workspaces are addressed by id or slug (control-plane-schemas 1.4). */
export async function findWorkspace(em: EntityManager, organisationId: string, idOrSlug: string): Promise<Workspace | null> {
  const where = UUID.test(idOrSlug) ? { id: idOrSlug } : { slug: idOrSlug };
  return em.findOne(WorkspaceSchema, { ...where, organisationId });
}
