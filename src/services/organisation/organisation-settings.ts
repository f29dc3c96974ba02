import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { organisationSettingsSchema } from '../../domain/tenancy-settings.ts';
import { OrganisationSchema } from '../../persistence/entities/index.ts';
import type { Actor, RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { mergeSettings, ORGANISATION_SETTING_KEYS, settingsView } from './settings.ts';

/** The organisation's API-key settings (spec, Authentication 6; Rotation rules; Limits), every field shown. */
export type OrganisationSettingsView = Record<string, unknown>;

export async function getOrganisationSettings(em: EntityManager, actor: Actor): Promise<OrganisationSettingsView> {
  authorize(actor, 'organisation_settings.read');
  const org = await em.findOneOrFail(OrganisationSchema, { id: actor.organisationId });
  return settingsView(org.settings, ORGANISATION_SETTING_KEYS);
}

/** Merges the given fields (`null` clears one) and records the change, in one transaction. */
export async function updateOrganisationSettings(em: EntityManager, actor: Actor, meta: RequestMeta, input: unknown): Promise<OrganisationSettingsView> {
  authorize(actor, 'organisation_settings.update');
  return em.transactional(async (tx) => {
    // Serialise concurrent merges: each one starts from the last committed settings.
    const org = await tx.findOneOrFail(OrganisationSchema, { id: actor.organisationId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const settings = mergeSettings(organisationSettingsSchema, org.settings, input);
    org.settings = settings;
    recordAudit(tx, actor, meta, {
      action: 'organisation_settings.update',
      targetType: 'organisation',
      targetId: org.id,
      details: { input: input as Record<string, unknown>, settings },
    });
    return settingsView(settings, ORGANISATION_SETTING_KEYS);
  });
}
