import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, invalidParameter } from '../../domain/errors.ts';
import { randomSuffix, slugifyName } from '../../domain/integrations/shared-schemas.ts';
import { parseWith } from '../../domain/validation.ts';
import type { Actor, RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { findIntegration } from '../integrations/find-integration.ts';
import { workspaceAccess } from '../integrations/workspace-access.ts';
import { findProvider } from './find-provider.ts';
import { assertSlugFree, insertProvider, slugTaken } from './insert-provider.ts';
import { createProviderSchema, rateLimitsArray, updateProviderSchema } from './provider-input.ts';
import { targetWorkspace } from './target-workspace.ts';

export interface ProviderRef {
  id: string;
  slug: string;
}

const future = (iso: string | null | undefined, param: string): Date | null => {
  if (iso == null) return null;
  const d = new Date(iso);
  if (d.getTime() <= Date.now()) throw invalidParameter(param, `${param}: must be in the future`);
  return d;
};

/** POST /providers → `{id, slug}`: a provider in a workspace that may use the integration. */
export async function createProvider(em: EntityManager, actor: Actor, meta: RequestMeta, input: unknown): Promise<ProviderRef> {
  authorize(actor, 'providers.create');
  const body = parseWith(createProviderSchema, input);
  const workspaceId = await targetWorkspace(em, actor, 'providers.create', body.workspace_id);
  const expiresAt = future(body.expires_at, 'expires_at');
  try {
    return await em.transactional(async (tx) => {
      const integ = await findIntegration(tx, actor.organisationId, body.integration_id, { param: 'integration_id' });
      if (!(await workspaceAccess(tx, integ, workspaceId)).enabled) {
        throw new AppError(400, 'invalid_request_error', 'integration_not_enabled', `The integration ${integ.slug} is not enabled for this workspace`, 'integration_id');
      }
      // Default: the name plus a random suffix (control-plane-schemas 1.4).
      const slug = body.slug ?? `${slugifyName(body.name, 'provider')}-${randomSuffix()}`;
      await assertSlugFree(tx, workspaceId, slug, 'slug');
      const id = crypto.randomUUID();
      insertProvider(tx, {
        id,
        organisationId: actor.organisationId,
        workspaceId,
        kind: 'provider',
        integrationId: integ.id,
        name: body.name,
        slug,
        note: body.note ?? null,
        usageLimits: (body.usage_limits as Record<string, unknown> | null | undefined) ?? null,
        rateLimits: rateLimitsArray(body.rate_limits),
        expiresAt,
      });
      recordAudit(tx, actor, meta, { action: 'provider.create', targetType: 'provider', targetId: id, workspaceId, details: { ...body, integration_id: integ.slug, slug, workspace_id: workspaceId } });
      await tx.flush();
      return { id, slug };
    });
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw slugTaken(body.slug ?? '', 'slug');
    throw err;
  }
}

/** PUT /providers/{slug}?workspace_id= → `{id, slug}`. */
export async function updateProvider(em: EntityManager, actor: Actor, meta: RequestMeta, idOrSlug: string, workspaceIdArg: string | null | undefined, input: unknown): Promise<ProviderRef> {
  authorize(actor, 'providers.update');
  const body = parseWith(updateProviderSchema, input);
  return em.transactional(async (tx) => {
    const p = await findProvider(tx, actor, 'provider', idOrSlug, workspaceIdArg, true);
    authorize(actor, 'providers.update', { workspaceId: p.workspaceId });
    if (body.name !== undefined) p.name = body.name;
    if (body.note !== undefined) p.note = body.note;
    if (body.usage_limits !== undefined) p.usageLimits = body.usage_limits as Record<string, unknown> | null;
    if (body.rate_limits !== undefined) p.rateLimits = rateLimitsArray(body.rate_limits);
    if (body.expires_at !== undefined) p.expiresAt = future(body.expires_at, 'expires_at');
    // Usage is counted elsewhere; a reset re-activates an exhausted provider and zeroes its reset counter.
    if (body.reset_usage) {
      p.resetUsage = 0;
      if (p.status === 'exhausted') p.status = 'active';
    }
    p.updatedAt = new Date();
    recordAudit(tx, actor, meta, { action: 'provider.update', targetType: 'provider', targetId: p.id, workspaceId: p.workspaceId, details: { slug: p.slug, ...body } });
    await tx.flush();
    return { id: p.id, slug: p.slug };
  });
}

/** DELETE /providers/{slug}?workspace_id= → `{}`. */
export async function deleteProvider(em: EntityManager, actor: Actor, meta: RequestMeta, idOrSlug: string, workspaceIdArg: string | null | undefined): Promise<ProviderRef> {
  authorize(actor, 'providers.delete');
  return em.transactional(async (tx) => {
    const p = await findProvider(tx, actor, 'provider', idOrSlug, workspaceIdArg, true);
    authorize(actor, 'providers.delete', { workspaceId: p.workspaceId });
    recordAudit(tx, actor, meta, { action: 'provider.delete', targetType: 'provider', targetId: p.id, workspaceId: p.workspaceId, details: { name: p.name, slug: p.slug } });
    await tx.flush();
    tx.remove(p);
    await tx.flush();
    return { id: p.id, slug: p.slug };
  });
}
