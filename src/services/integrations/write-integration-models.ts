import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidParameter } from '../../domain/errors.ts';
import { parseWith } from '../../domain/validation.ts';
import { IntegrationModelSchema } from '../../persistence/entities/index.ts';
import type { Actor, RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { findIntegration } from './find-integration.ts';
import { putIntegrationModelsSchema } from './integration-input.ts';

/**
 * PUT /integrations/{slug}/models (and /v1/integrations/{id}/integration-models) → `{}`:
 * upserts each named model (enabled, custom, custom host and headers, custom pricing);
 * models not named are left as they are. One transaction.
 */
export async function putIntegrationModels(em: EntityManager, actor: Actor, meta: RequestMeta, idOrSlug: string, input: unknown): Promise<{ id: string }> {
  authorize(actor, 'integrations.update');
  const body = parseWith(putIntegrationModelsSchema, input);
  return em.transactional(async (tx) => {
    const integ = await findIntegration(tx, actor.organisationId, idOrSlug, { lock: true });
    authorize(actor, 'integrations.update', { workspaceId: integ.workspaceId ?? undefined });
    for (const m of body.models) {
      const headers = { ...(m.configurations?.custom_headers ?? {}), ...(m.custom_headers ?? {}) };
      const row = {
        name: m.name ?? null,
        enabled: m.enabled,
        isCustom: m.is_custom ?? false,
        isFinetune: m.is_finetune ?? false,
        baseModelSlug: m.base_model_slug ?? null,
        customHost: m.configurations?.custom_host ?? null,
        customHeaders: Object.keys(headers).length ? headers : null,
        pricingConfig: m.pricing_config ?? null,
      };
      const existing = await tx.findOne(IntegrationModelSchema, { integrationId: integ.id, slug: m.slug });
      if (existing) tx.assign(existing, row);
      else tx.create(IntegrationModelSchema, { integrationId: integ.id, slug: m.slug, ...row });
    }
    if (body.allow_all_models !== undefined) integ.allowAllModels = body.allow_all_models;
    recordAudit(tx, actor, meta, {
      action: 'integration.models.update',
      targetType: 'integration',
      targetId: integ.id,
      workspaceId: integ.workspaceId ?? null,
      // Header values may carry credentials: only their names are recorded.
      details: {
        allow_all_models: body.allow_all_models,
        models: body.models.map((m) => ({ slug: m.slug, enabled: m.enabled, is_custom: m.is_custom ?? false, custom_header_names: Object.keys({ ...(m.configurations?.custom_headers ?? {}), ...(m.custom_headers ?? {}) }) })),
      },
    });
    await tx.flush();
    return { id: integ.id };
  });
}

/** DELETE /integrations/{slug}/models?slugs=a,b → `{}`: removes custom models; naming anything else is a 400. */
export async function deleteIntegrationModels(em: EntityManager, actor: Actor, meta: RequestMeta, idOrSlug: string, slugs: string[] | null | undefined): Promise<{ id: string }> {
  authorize(actor, 'integrations.update');
  if (!slugs?.length) throw invalidParameter('slugs', 'slugs: give at least one model slug (comma-separated)');
  return em.transactional(async (tx) => {
    const integ = await findIntegration(tx, actor.organisationId, idOrSlug, { lock: true });
    authorize(actor, 'integrations.update', { workspaceId: integ.workspaceId ?? undefined });
    const custom = await tx.find(IntegrationModelSchema, { integrationId: integ.id, slug: { $in: slugs }, isCustom: true });
    const missing = slugs.filter((s) => !custom.some((m) => m.slug === s));
    if (missing.length) throw invalidParameter('slugs', `slugs: not a custom model of this integration: ${missing.join(', ')}`);
    await tx.nativeDelete(IntegrationModelSchema, { integrationId: integ.id, slug: { $in: slugs } });
    recordAudit(tx, actor, meta, { action: 'integration.models.delete', targetType: 'integration', targetId: integ.id, workspaceId: integ.workspaceId ?? null, details: { slugs } });
    await tx.flush();
    return { id: integ.id };
  });
}
