import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { generateApiKeySecret } from '../../domain/api-key-secret.ts';
import { AppError, notFound } from '../../domain/errors.ts';
import { generateSlug } from '../../domain/slug.ts';
import { parseWith } from '../../domain/validation.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import { DeploymentSchema } from '../../persistence/entities/index.ts';
import type { Deployment } from '../../persistence/entities/deployment.ts';
import type { Actor, RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { findWorkspace } from '../workspaces/find-workspace.ts';
import { createDeploymentSchema, updateDeploymentSchema } from './deployment-input.ts';
import { deploymentSecretContext, findDeployment } from './find-deployment.ts';

const conflict = (message: string, param: string | null, code = 'conflict'): AppError => new AppError(409, 'conflict_error', code, message, param);
const editorOf = (actor: Actor): string => actor.userId ?? actor.keyId;
const union = (a: string[], b: string[]): string[] => [...new Set([...a, ...b])];

/** Workspace ids or slugs → ids of the organisation's workspaces (400 naming the entry otherwise). */
async function workspaceIds(em: EntityManager, actor: Actor, refs: string[], param: string): Promise<string[]> {
  const out: string[] = [];
  for (const [n, ref] of refs.entries()) {
    const ws = await findWorkspace(em, actor.organisationId, ref);
    if (!ws) throw notFound('Workspace', `${param}[${n}]`);
    out.push(ws.id);
  }
  return [...new Set(out)];
}

/** Drops `undefined` so the stored JSON holds only what was sent. */
const defined = (o: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** A sealed copy of the credentials, without what answers and the audit log may show. */
function setCredentials(box: SecretBox, d: { id: string; credentialsUsername?: string | null; credentialsPasswordSealed?: string | null }, c: { username: string; password: string }): void {
  d.credentialsUsername = c.username;
  d.credentialsPasswordSealed = box.seal(c.password, deploymentSecretContext(d.id));
}

async function clearDefault(tx: EntityManager, organisationId: string, except: string): Promise<void> {
  await tx.nativeUpdate(DeploymentSchema, { organisationId, isDefault: true, id: { $ne: except } }, { isDefault: false });
}

/** POST /deployments → `{id, slug}`. */
export async function createDeployment(em: EntityManager, box: SecretBox, actor: Actor, meta: RequestMeta, input: unknown): Promise<{ id: string; slug: string }> {
  authorize(actor, 'deployments.create');
  const body = parseWith(createDeploymentSchema, input);
  if (body.organisation_id && body.organisation_id !== actor.organisationId) throw notFound('Organisation', 'organisation_id');
  const auth = defined({ ...(body.auth_settings ?? {}) });
  if (body.auth_settings?.workspaces_allowed) auth.workspaces_allowed = await workspaceIds(em, actor, body.auth_settings.workspaces_allowed, 'auth_settings.workspaces_allowed');
  try {
    return await em.transactional(async (tx) => {
      let slug = body.slug ?? generateSlug('dep', body.name.slice(0, 30), 'deployment');
      if (body.slug) {
        if (await tx.count(DeploymentSchema, { organisationId: actor.organisationId, slug })) throw conflict(`The slug ${slug} is taken`, 'slug', 'slug_taken');
      } else {
        for (let n = 0; n < 5 && (await tx.count(DeploymentSchema, { organisationId: actor.organisationId, slug })); n++) slug = generateSlug('dep', body.name.slice(0, 30), 'deployment');
      }
      const id = crypto.randomUUID();
      if (body.is_default) await clearDefault(tx, actor.organisationId, id);
      const d = tx.create(DeploymentSchema, {
        id,
        organisationId: actor.organisationId,
        name: body.name,
        slug,
        type: body.type ?? 'production',
        status: 'active',
        sourceType: body.source_type ?? null,
        tags: body.tags ?? {},
        deploymentConfig: body.deployment_config ?? {},
        authSettings: auth,
        isDefault: body.is_default ?? false,
        ownerId: editorOf(actor),
        updatedBy: editorOf(actor),
      });
      if (body.credentials) setCredentials(box, d, body.credentials);
      recordAudit(tx, actor, meta, {
        action: 'deployment.create',
        targetType: 'deployment',
        targetId: id,
        details: { ...body, slug, auth_settings: auth, credentials: body.credentials ? { username: body.credentials.username } : undefined },
      });
      await tx.flush();
      return { id, slug };
    });
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw conflict('A concurrent change conflicted with this one; retry', 'slug');
    throw err;
  }
}

/** What PUT answers: `{}`, or the new credentials once after `rotate_auth`. */
export interface UpdatedDeployment {
  id: string;
  credentials: { username: string; password: string } | null;
}

/**
 * PUT /deployments/{id}: given fields replace; in `auth_settings` the lists merge into the stored
 * ones (replace with `override_existing`) and `remove_*` take entries out (control-plane-schemas 2.19).
 */
export async function updateDeployment(em: EntityManager, box: SecretBox, actor: Actor, meta: RequestMeta, idOrSlug: string, input: unknown): Promise<UpdatedDeployment> {
  authorize(actor, 'deployments.update');
  const body = parseWith(updateDeploymentSchema, input);
  const a = body.auth_settings;
  const addWs = a?.workspaces_allowed ? await workspaceIds(em, actor, a.workspaces_allowed, 'auth_settings.workspaces_allowed') : undefined;
  const removeWs = a?.remove_workspaces_allowed ? await workspaceIds(em, actor, a.remove_workspaces_allowed, 'auth_settings.remove_workspaces_allowed') : [];
  return em.transactional(async (tx) => {
    const d: Deployment = await findDeployment(tx, actor, idOrSlug, true);
    if (body.name !== undefined) d.name = body.name;
    if (body.type !== undefined) d.type = body.type;
    if (body.status !== undefined) d.status = body.status;
    if (body.source_type !== undefined) d.sourceType = body.source_type;
    if (body.tags !== undefined) d.tags = body.tags;
    if (body.deployment_config !== undefined) d.deploymentConfig = body.deployment_config;
    if (body.ch_db !== undefined) d.chDb = body.ch_db;
    if (a) {
      const { remove_workspaces_allowed: _rw, remove_subs_allowed: removeSubs, workspaces_allowed: _wa, jwt_subs_allowed: subs, ...plain } = a;
      const stored = d.authSettings;
      const oldWs = (stored.workspaces_allowed as string[] | undefined) ?? [];
      const oldSubs = (stored.jwt_subs_allowed as string[] | undefined) ?? [];
      const next: Record<string, unknown> = { ...(body.override_existing ? {} : stored), ...defined(plain) };
      const ws = addWs === undefined ? (body.override_existing ? [] : oldWs) : body.override_existing ? addWs : union(oldWs, addWs);
      const sb = subs === undefined ? (body.override_existing ? [] : oldSubs) : body.override_existing ? subs : union(oldSubs, subs);
      next.workspaces_allowed = ws.filter((w) => !removeWs.includes(w));
      next.jwt_subs_allowed = sb.filter((s) => !(removeSubs ?? []).includes(s));
      d.authSettings = next;
    }
    if (body.is_default !== undefined) {
      if (body.is_default) await clearDefault(tx, d.organisationId, d.id);
      d.isDefault = body.is_default;
    }
    if (body.credentials) setCredentials(box, d, body.credentials);
    let rotated: { username: string; password: string } | null = null;
    if (body.rotate_auth) {
      rotated = { username: d.credentialsUsername ?? 'gateway', password: generateApiKeySecret(40) };
      setCredentials(box, d, rotated);
    }
    d.updatedBy = editorOf(actor);
    d.updatedAt = new Date();
    recordAudit(tx, actor, meta, {
      action: 'deployment.update',
      targetType: 'deployment',
      targetId: d.id,
      details: { ...body, auth_settings: a ? d.authSettings : undefined, credentials: body.credentials ? { username: body.credentials.username } : undefined },
    });
    await tx.flush();
    return { id: d.id, credentials: rotated };
  });
}

/** DELETE /deployments/{id} → `{}`. */
export async function deleteDeployment(em: EntityManager, actor: Actor, meta: RequestMeta, idOrSlug: string): Promise<{ id: string }> {
  authorize(actor, 'deployments.delete');
  return em.transactional(async (tx) => {
    const d = await findDeployment(tx, actor, idOrSlug, true);
    recordAudit(tx, actor, meta, { action: 'deployment.delete', targetType: 'deployment', targetId: d.id, details: { name: d.name, slug: d.slug } });
    tx.remove(d);
    await tx.flush();
    return { id: d.id };
  });
}
