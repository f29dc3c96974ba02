import type { EntityManager } from '@mikro-orm/postgresql';
import { effectiveKeySettings, type EffectiveKeySettings, type OrganisationSettings, type WorkspaceSettings } from '../../domain/tenancy-settings.ts';
import { OrganisationSchema, WorkspaceSchema } from '../../persistence/entities/index.ts';

/** The API key settings in force for a workspace (or the organisation's own, without one). */
export async function loadKeySettings(em: EntityManager, organisationId: string, workspaceId: string | null): Promise<EffectiveKeySettings> {
  const org = await em.findOneOrFail(OrganisationSchema, { id: organisationId });
  const ws = workspaceId ? await em.findOne(WorkspaceSchema, { id: workspaceId, organisationId }) : null;
  return effectiveKeySettings((org.settings ?? {}) as OrganisationSettings, ws ? ((ws.settings ?? {}) as WorkspaceSettings) : null, ws?.isDefault ?? false);
}
