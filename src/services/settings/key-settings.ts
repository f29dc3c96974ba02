import type { EntityManager } from '@mikro-orm/postgresql';
import {
  effectiveKeySettings,
  organisationSettingsSchema,
  workspaceSettingsSchema,
  type EffectiveKeySettings,
  type OrganisationSettings,
  type WorkspaceSettings,
} from '../../domain/tenancy-settings.ts';
import { OrganisationSchema, WorkspaceSchema } from '../../persistence/entities/index.ts';

// Stored settings pass through the same schema as writes, so every reader sees normalised
// values (weekly → 7) even for rows written before a rule existed.
const readOrg = (raw: unknown): OrganisationSettings => {
  const r = organisationSettingsSchema.safeParse(raw ?? {});
  return r.success ? r.data : {};
};
const readWorkspace = (raw: unknown): WorkspaceSettings => {
  const r = workspaceSettingsSchema.safeParse(raw ?? {});
  return r.success ? r.data : {};
};

/** The API key settings in force for a workspace (or the organisation's own, without one). */
export async function loadKeySettings(em: EntityManager, organisationId: string, workspaceId: string | null): Promise<EffectiveKeySettings> {
  const org = await em.findOneOrFail(OrganisationSchema, { id: organisationId });
  const ws = workspaceId ? await em.findOne(WorkspaceSchema, { id: workspaceId, organisationId }) : null;
  return effectiveKeySettings(readOrg(org.settings), ws ? readWorkspace(ws.settings) : null, ws?.isDefault ?? false);
}
