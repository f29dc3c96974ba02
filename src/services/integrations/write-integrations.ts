import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, notFound } from '../../domain/errors.ts';
import { maskSecret, splitSecrets } from '../../domain/integrations/configurations.ts';
import { randomSuffix, slugifyName } from '../../domain/integrations/shared-schemas.ts';
import { parseWith } from '../../domain/validation.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import { IntegrationSchema, IntegrationWorkspaceSchema } from '../../persistence/entities/index.ts';
import type { Actor, RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { assertSlugFree, insertProvider } from '../providers/insert-provider.ts';
import { findWorkspace } from '../workspaces/find-workspace.ts';
import { checkedConfigurations, mergeConfigurations } from './checked-configurations.ts';
import { findIntegration } from './find-integration.ts';
import { createIntegrationSchema, updateIntegrationSchema } from './integration-input.ts';
import { keyContext, openSecretConfigurations, sealSecretConfigurations } from './integration-secrets.ts';

export interface IntegrationRef {
  id: string;
  slug: string;
}

const conflict = (message: string, param: string | null, code = 'conflict'): AppError => new AppError(409, 'conflict_error', code, message, param);

/** Audit details never hold a secret: the configuration's secret fields are named only. */
function auditConfigurations(c: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!c) return undefined;
  const { plain, secret } = splitSecrets(c);
  return { ...plain, ...(Object.keys(secret).length ? { secret_fields_set: Object.keys(secret).sort() } : {}) };
}

/** A slug from the name, with a suffix while it is taken in the organisation. */
async function freeSlug(tx: EntityManager, organisationId: string, name: string): Promise<string> {
  const base = slugifyName(name, 'integration');
  let slug = base;
  for (let i = 0; i < 5 && (await tx.count(IntegrationSchema, { organisationId, slug })); i++) slug = `${base.slice(0, 240)}-${randomSuffix()}`;
  return slug;
}

/**
 * POST /integrations → `{id, slug}`. With `workspace_id` the integration is workspace-scoped and,
 * unless `create_default_provider` is false, gets a provider of the same slug (or
 * `default_provider_slug`) in that workspace, in the same transaction.
 */
export async function createIntegration(em: EntityManager, box: SecretBox, actor: Actor, meta: RequestMeta, input: unknown): Promise<IntegrationRef> {
  authorize(actor, 'integrations.create');
  const body = parseWith(createIntegrationSchema, input);
  const configurations = checkedConfigurations(body.ai_provider_id, body.configurations ?? {});
  let workspaceId: string | null = null;
  if (body.workspace_id) {
    const ws = await findWorkspace(em, actor.organisationId, body.workspace_id);
    if (!ws) throw notFound('Workspace', 'workspace_id');
    workspaceId = ws.id;
    authorize(actor, 'integrations.create', { workspaceId });
  } else if (body.create_default_provider === true || body.default_provider_slug !== undefined) {
    throw new AppError(400, 'invalid_request_error', 'invalid_parameter', 'default providers are created only for workspace-scoped integrations (give workspace_id)', 'create_default_provider');
  }
  try {
    return await em.transactional(async (tx) => {
      if (body.slug && (await tx.count(IntegrationSchema, { organisationId: actor.organisationId, slug: body.slug }))) {
        throw conflict(`The slug ${body.slug} is already used by an integration`, 'slug', 'slug_taken');
      }
      const slug = body.slug ?? (await freeSlug(tx, actor.organisationId, body.name));
      const id = crypto.randomUUID();
      const { plain, secret } = splitSecrets(configurations);
      tx.create(IntegrationSchema, {
        id,
        organisationId: actor.organisationId,
        workspaceId,
        name: body.name,
        slug,
        aiProviderId: body.ai_provider_id,
        description: body.description ?? null,
        status: 'active',
        keySealed: body.key ? box.seal(body.key, keyContext(id)) : null,
        keyMask: body.key ? maskSecret(body.key) : null,
        configurations: plain,
        secretsSealed: sealSecretConfigurations(box, id, secret),
        secretMappings: body.secret_mappings ?? null,
        pricingAdjustments: body.pricing_adjustments ?? null,
        allowAllModels: true,
        globalWorkspaceAccess: null,
      });
      await tx.flush();
      let defaultProvider: string | null = null;
      if (workspaceId && body.create_default_provider !== false) {
        defaultProvider = body.default_provider_slug ?? slug;
        await assertSlugFree(tx, workspaceId, defaultProvider, body.default_provider_slug ? 'default_provider_slug' : 'slug');
        insertProvider(tx, { organisationId: actor.organisationId, workspaceId, kind: 'provider', integrationId: id, name: body.name, slug: defaultProvider });
      }
      recordAudit(tx, actor, meta, {
        action: 'integration.create',
        targetType: 'integration',
        targetId: id,
        workspaceId,
        details: {
          name: body.name,
          slug,
          ai_provider_id: body.ai_provider_id,
          workspace_id: workspaceId,
          key_set: !!body.key,
          configurations: auditConfigurations(configurations),
          default_provider_slug: defaultProvider,
        },
      });
      await tx.flush();
      return { id, slug };
    });
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw conflict('A concurrent change conflicted with this one; retry', null);
    throw err;
  }
}

/** PUT /integrations/{slug} → `{}`. A new key or secret field is a credential rotation: every provider built on it is told (trigger). */
export async function updateIntegration(em: EntityManager, box: SecretBox, actor: Actor, meta: RequestMeta, idOrSlug: string, input: unknown): Promise<IntegrationRef> {
  authorize(actor, 'integrations.update');
  const body = parseWith(updateIntegrationSchema, input);
  return em.transactional(async (tx) => {
    const integ = await findIntegration(tx, actor.organisationId, idOrSlug, { lock: true });
    authorize(actor, 'integrations.update', { workspaceId: integ.workspaceId ?? undefined });
    if (body.configurations !== undefined) {
      const stored = { ...integ.configurations, ...openSecretConfigurations(box, integ) };
      const merged = checkedConfigurations(integ.aiProviderId, mergeConfigurations(stored, body.configurations));
      const { plain, secret } = splitSecrets(merged);
      integ.configurations = plain;
      integ.secretsSealed = sealSecretConfigurations(box, integ.id, secret);
    }
    if (body.key !== undefined) {
      integ.keySealed = body.key === null ? null : box.seal(body.key, keyContext(integ.id));
      integ.keyMask = body.key === null ? null : maskSecret(body.key);
    }
    if (body.name !== undefined) integ.name = body.name;
    if (body.description !== undefined) integ.description = body.description;
    if (body.secret_mappings !== undefined) integ.secretMappings = body.secret_mappings;
    if (body.pricing_adjustments !== undefined) integ.pricingAdjustments = body.pricing_adjustments;
    integ.updatedAt = new Date();
    const { key, configurations, ...rest } = body;
    recordAudit(tx, actor, meta, {
      action: 'integration.update',
      targetType: 'integration',
      targetId: integ.id,
      workspaceId: integ.workspaceId ?? null,
      details: { ...rest, ...(key !== undefined ? { key_rotated: key !== null, key_removed: key === null } : {}), configurations: auditConfigurations(configurations) },
    });
    await tx.flush();
    return { id: integ.id, slug: integ.slug };
  });
}

/** DELETE /integrations/{slug} → `{}`: its models, workspace access and providers go with it (cascade; the providers' trigger tells workers). */
export async function deleteIntegration(em: EntityManager, actor: Actor, meta: RequestMeta, idOrSlug: string): Promise<IntegrationRef> {
  authorize(actor, 'integrations.delete');
  return em.transactional(async (tx) => {
    const integ = await findIntegration(tx, actor.organisationId, idOrSlug, { lock: true });
    authorize(actor, 'integrations.delete', { workspaceId: integ.workspaceId ?? undefined });
    const workspaces = await tx.count(IntegrationWorkspaceSchema, { integrationId: integ.id });
    recordAudit(tx, actor, meta, {
      action: 'integration.delete',
      targetType: 'integration',
      targetId: integ.id,
      workspaceId: integ.workspaceId ?? null,
      details: { name: integ.name, slug: integ.slug, workspace_rows: workspaces },
    });
    await tx.flush();
    await tx.nativeDelete(IntegrationSchema, { id: integ.id });
    return { id: integ.id, slug: integ.slug };
  });
}
