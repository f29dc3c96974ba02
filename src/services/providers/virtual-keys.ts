import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidParameter } from '../../domain/errors.ts';
import { maskSecret } from '../../domain/integrations/configurations.ts';
import { randomSuffix, slugifyName } from '../../domain/integrations/shared-schemas.ts';
import { parseWith } from '../../domain/validation.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import { ProviderSchema } from '../../persistence/entities/index.ts';
import type { Actor, RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { page, pageWindow, type Page, type PageArgs } from '../paging.ts';
import { findProvider } from './find-provider.ts';
import { assertSlugFree, insertProvider, slugTaken } from './insert-provider.ts';
import { rateLimitsArray } from './provider-input.ts';
import { listWorkspace, targetWorkspace } from './target-workspace.ts';
import { createVirtualKeySchema, updateVirtualKeySchema } from './virtual-key-input.ts';
import { toVirtualKeyView, type VirtualKeyView } from './virtual-key-view.ts';

// Legacy virtual keys (control-plane-schemas 2.6): a provider row of kind `virtual_key` holding
// its own provider id and sealed key; the data plane resolves it like a provider, by slug.

export const virtualKeyContext = (id: string): string => `provider:${id}:key`;

const future = (iso: string | null | undefined): Date | null => {
  if (iso == null) return null;
  const d = new Date(iso);
  if (d.getTime() <= Date.now()) throw invalidParameter('expires_at', 'expires_at: must be in the future');
  return d;
};

/** Audit details: what changed, never the key. */
const auditBody = (b: Record<string, unknown>): Record<string, unknown> => {
  const { key, ...rest } = b;
  return { ...rest, ...(key !== undefined ? { key_set: key !== null } : {}) };
};

/** POST /virtual-keys → `{success, data:{slug}}`. */
export async function createVirtualKey(em: EntityManager, box: SecretBox, actor: Actor, meta: RequestMeta, input: unknown): Promise<{ id: string; slug: string }> {
  authorize(actor, 'virtual_keys.create');
  const body = parseWith(createVirtualKeySchema, input);
  const workspaceId = await targetWorkspace(em, actor, 'virtual_keys.create', body.workspace_id);
  const expiresAt = future(body.expires_at);
  const provider = body.provider === 'open-ai' ? 'openai' : body.provider;
  const name = body.name ?? provider;
  const modelConfig: Record<string, unknown> = {};
  for (const k of ['apiVersion', 'resourceName', 'deploymentName', 'deploymentConfig'] as const) if (body[k] != null) modelConfig[k] = body[k];
  const slug = `${slugifyName(name, 'virtual-key')}-${randomSuffix()}`;
  try {
    return await em.transactional(async (tx) => {
      await assertSlugFree(tx, workspaceId, slug, 'name');
      const id = crypto.randomUUID();
      insertProvider(tx, {
        id,
        organisationId: actor.organisationId,
        workspaceId,
        kind: 'virtual_key',
        aiProviderId: provider,
        name,
        slug,
        note: body.note ?? null,
        usageLimits: (body.usage_limits as Record<string, unknown> | null | undefined) ?? null,
        rateLimits: rateLimitsArray(body.rate_limits),
        expiresAt,
        keySealed: body.key ? box.seal(body.key, virtualKeyContext(id)) : null,
        keyMask: body.key ? maskSecret(body.key) : null,
        modelConfig,
        secretMappings: body.secret_mappings ?? null,
      });
      recordAudit(tx, actor, meta, { action: 'virtual_key.create', targetType: 'virtual_key', targetId: id, workspaceId, details: { ...auditBody(body), slug, workspace_id: workspaceId } });
      await tx.flush();
      return { id, slug };
    });
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw slugTaken(slug, 'name');
    throw err;
  }
}

/** GET /virtual-keys: both paging parameters are required upstream (quirk 2). */
export async function listVirtualKeys(em: EntityManager, actor: Actor, args: PageArgs & { workspaceId?: string | null }): Promise<Page<VirtualKeyView>> {
  authorize(actor, 'virtual_keys.list');
  if (args.currentPage == null) throw invalidParameter('current_page', 'current_page: required');
  if (args.pageSize == null) throw invalidParameter('page_size', 'page_size: required');
  const window = pageWindow(args, { defaultSize: 50 });
  const workspaceId = await listWorkspace(em, actor, args.workspaceId);
  const [rows, total] = await em.findAndCount(
    ProviderSchema,
    { organisationId: actor.organisationId, kind: 'virtual_key', ...(workspaceId ? { workspaceId } : {}) },
    { orderBy: { createdAt: 'asc', id: 'asc' }, limit: window.limit, offset: window.offset },
  );
  return page(rows.map(toVirtualKeyView), total);
}

export async function getVirtualKey(em: EntityManager, actor: Actor, idOrSlug: string, workspaceId?: string | null): Promise<VirtualKeyView> {
  authorize(actor, 'virtual_keys.read');
  return toVirtualKeyView(await findProvider(em, actor, 'virtual_key', idOrSlug, workspaceId));
}

/** PUT /virtual-keys/{slug} → `{}`. A new key is sealed anew and workers are told (trigger). */
export async function updateVirtualKey(em: EntityManager, box: SecretBox, actor: Actor, meta: RequestMeta, idOrSlug: string, workspaceIdArg: string | null | undefined, input: unknown): Promise<{ id: string; slug: string }> {
  authorize(actor, 'virtual_keys.update');
  const body = parseWith(updateVirtualKeySchema, input);
  return em.transactional(async (tx) => {
    const p = await findProvider(tx, actor, 'virtual_key', idOrSlug, workspaceIdArg, true);
    authorize(actor, 'virtual_keys.update', { workspaceId: p.workspaceId });
    if (body.name !== undefined) p.name = body.name;
    if (body.key !== undefined) {
      p.keySealed = box.seal(body.key, virtualKeyContext(p.id));
      p.keyMask = maskSecret(body.key);
    }
    if (body.note !== undefined) p.note = body.note;
    if (body.deploymentConfig !== undefined) p.modelConfig = { ...(p.modelConfig ?? {}), deploymentConfig: body.deploymentConfig };
    if (body.usage_limits !== undefined) p.usageLimits = body.usage_limits as Record<string, unknown> | null;
    if (body.rate_limits !== undefined) p.rateLimits = rateLimitsArray(body.rate_limits);
    if (body.expires_at !== undefined) p.expiresAt = future(body.expires_at);
    if (body.secret_mappings !== undefined) p.secretMappings = body.secret_mappings;
    p.updatedAt = new Date();
    recordAudit(tx, actor, meta, { action: 'virtual_key.update', targetType: 'virtual_key', targetId: p.id, workspaceId: p.workspaceId, details: { slug: p.slug, ...auditBody(body) } });
    await tx.flush();
    return { id: p.id, slug: p.slug };
  });
}

/** DELETE /virtual-keys/{slug} → `{}`. */
export async function deleteVirtualKey(em: EntityManager, actor: Actor, meta: RequestMeta, idOrSlug: string, workspaceIdArg: string | null | undefined): Promise<{ id: string; slug: string }> {
  authorize(actor, 'virtual_keys.delete');
  return em.transactional(async (tx) => {
    const p = await findProvider(tx, actor, 'virtual_key', idOrSlug, workspaceIdArg, true);
    authorize(actor, 'virtual_keys.delete', { workspaceId: p.workspaceId });
    recordAudit(tx, actor, meta, { action: 'virtual_key.delete', targetType: 'virtual_key', targetId: p.id, workspaceId: p.workspaceId, details: { name: p.name, slug: p.slug } });
    await tx.flush();
    tx.remove(p);
    await tx.flush();
    return { id: p.id, slug: p.slug };
  });
}
