import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, notFound } from '../../domain/errors.ts';
import { parseWith } from '../../domain/validation.ts';
import { IntegrationWorkspaceSchema, ProviderSchema, WorkspaceSchema } from '../../persistence/entities/index.ts';
import type { Integration } from '../../persistence/entities/integration.ts';
import type { Actor, RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { assertSlugFree, insertProvider } from '../providers/insert-provider.ts';
import { findWorkspace } from '../workspaces/find-workspace.ts';
import { findIntegration } from './find-integration.ts';
import { putIntegrationWorkspacesSchema } from './integration-input.ts';

/** A provider named `slug` on the integration in a workspace that has none of it yet. */
async function ensureDefaultProvider(tx: EntityManager, integ: Integration, workspaceId: string, slug: string, param: string): Promise<string | null> {
  if (await tx.count(ProviderSchema, { workspaceId, integrationId: integ.id })) return null;
  await assertSlugFree(tx, workspaceId, slug, param);
  insertProvider(tx, { organisationId: integ.organisationId, workspaceId, kind: 'provider', integrationId: integ.id, name: integ.name, slug });
  await tx.flush();
  return slug;
}

/**
 * PUT /integrations/{slug}/workspaces → `{}` (control-plane-schemas 2.4): grants or revokes
 * workspaces with their limits, sets the global access, and creates a default provider in
 * each newly enabled workspace unless told not to. One transaction.
 */
export async function putIntegrationWorkspaces(em: EntityManager, actor: Actor, meta: RequestMeta, idOrSlug: string, input: unknown): Promise<{ id: string }> {
  authorize(actor, 'integrations.update');
  const body = parseWith(putIntegrationWorkspacesSchema, input);
  return em.transactional(async (tx) => {
    const integ = await findIntegration(tx, actor.organisationId, idOrSlug, { lock: true });
    if (integ.workspaceId) {
      throw new AppError(400, 'invalid_request_error', 'workspace_scoped_integration', 'A workspace-scoped integration serves only its own workspace', 'workspaces');
    }
    const created: { workspace_id: string; slug: string }[] = [];
    if (body.global_workspace_access !== undefined) {
      integ.globalWorkspaceAccess = body.global_workspace_access;
      // Override: the global setting replaces every per-workspace row.
      if (body.override_existing_workspace_access) await tx.nativeDelete(IntegrationWorkspaceSchema, { integrationId: integ.id });
      integ.updatedAt = new Date();
    }
    const topCreate = body.create_default_provider ?? true;
    for (const [i, w] of (body.workspaces ?? []).entries()) {
      const ws = await findWorkspace(tx, actor.organisationId, w.id);
      if (!ws) throw notFound('Workspace', `workspaces[${i}].id`);
      const existing = await tx.findOne(IntegrationWorkspaceSchema, { integrationId: integ.id, workspaceId: ws.id });
      const row = {
        enabled: w.enabled,
        usageLimits: w.usage_limits !== undefined ? (w.usage_limits as Record<string, unknown>[] | null) : (existing?.usageLimits ?? null),
        rateLimits: w.rate_limits !== undefined ? (w.rate_limits as Record<string, unknown>[] | null) : (existing?.rateLimits ?? null),
        resetUsageAt: w.reset_usage ? new Date() : (existing?.resetUsageAt ?? null),
      };
      if (existing) tx.assign(existing, row);
      else tx.create(IntegrationWorkspaceSchema, { integrationId: integ.id, workspaceId: ws.id, ...row });
      if (w.enabled && (w.create_default_provider ?? topCreate)) {
        const slug = w.default_provider_slug ?? body.default_provider_slug ?? integ.slug;
        const param = w.default_provider_slug ? `workspaces[${i}].default_provider_slug` : body.default_provider_slug ? 'default_provider_slug' : 'slug';
        const made = await ensureDefaultProvider(tx, integ, ws.id, slug, param);
        if (made) created.push({ workspace_id: ws.id, slug: made });
      }
    }
    // Global access also reaches every current workspace: give each its default provider.
    if (body.global_workspace_access?.enabled && topCreate) {
      const named = new Set((body.workspaces ?? []).map((w) => w.id));
      for (const ws of await tx.find(WorkspaceSchema, { organisationId: actor.organisationId }, { orderBy: { createdAt: 'asc' } })) {
        if (named.has(ws.id) || named.has(ws.slug)) continue;
        const row = await tx.findOne(IntegrationWorkspaceSchema, { integrationId: integ.id, workspaceId: ws.id });
        if (row && !row.enabled) continue;
        const made = await ensureDefaultProvider(tx, integ, ws.id, body.default_provider_slug ?? integ.slug, body.default_provider_slug ? 'default_provider_slug' : 'slug');
        if (made) created.push({ workspace_id: ws.id, slug: made });
      }
    }
    recordAudit(tx, actor, meta, {
      action: 'integration.workspaces.update',
      targetType: 'integration',
      targetId: integ.id,
      workspaceId: null,
      details: { ...body, default_providers_created: created },
    });
    await tx.flush();
    return { id: integ.id };
  });
}
