import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidParameter } from '../../domain/errors.ts';
import { generateSlug } from '../../domain/slug.ts';
import { parseWith } from '../../domain/validation.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import { SecretReferenceSchema } from '../../persistence/entities/index.ts';
import type { Actor, RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { findWorkspace } from '../workspaces/find-workspace.ts';
import { findSecretReference, openAuthConfig, sealContext } from './find-secret-reference.ts';
import {
  AUTH_DISCRIMINATOR,
  authConfigSchema,
  createSecretReferenceSchema,
  secretPathIssue,
  updateSecretReferenceSchema,
  type ManagerType,
} from './secret-reference-input.ts';
import { SECRET_REFERENCE_OBJECT } from './secret-reference-view.ts';

// Secret references (control-plane-schemas 2.17): validation failures, a taken slug and bad
// workspaces are 400s, as the spec lists them.

export interface CreatedSecretReference {
  id: string;
  slug: string;
  object: string;
}

export interface ChangedSecretReference {
  id: string;
}

const editorOf = (actor: Actor): string => actor.userId ?? actor.keyId;

/** auth_config checked against the manager type, naming `auth_config.<field>`. */
function checkedAuth(type: ManagerType, auth: unknown): Record<string, unknown> {
  return parseWith(authConfigSchema(type), auth, 'auth_config');
}

function checkPath(type: ManagerType, path: string): void {
  const issue = secretPathIssue(type, path);
  if (issue) throw invalidParameter('secret_path', `secret_path: ${issue}`);
}

/** Workspace ids for `allowed_workspaces` (ids or slugs of the organisation), or the 400 naming the bad one. */
async function workspaceIds(em: EntityManager, organisationId: string, refs: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, ref] of refs.entries()) {
    const ws = await findWorkspace(em, organisationId, ref);
    if (!ws) throw invalidParameter(`allowed_workspaces[${i}]`, `allowed_workspaces[${i}]: unknown workspace ${ref}`);
    if (!ids.includes(ws.id)) ids.push(ws.id);
  }
  return ids;
}

/** Which auth_config fields were given (never their values: they may be credentials). */
const authFields = (auth: Record<string, unknown>): string[] => Object.keys(auth).sort();

async function slugTaken(em: EntityManager, organisationId: string, slug: string, exceptId?: string): Promise<boolean> {
  return (await em.count(SecretReferenceSchema, { organisationId, slug, ...(exceptId ? { id: { $ne: exceptId } } : {}) })) > 0;
}

const slugConflict = (slug: string) => invalidParameter('slug', `slug: ${slug} is already used by another secret reference`);

/** The name as a slug (`My AWS key` → `my-aws-key`), with a random suffix only if that is taken. */
async function slugFromName(em: EntityManager, organisationId: string, name: string): Promise<string> {
  const base = generateSlug('x', name, 'secret').replace(/^x-/, '').replace(/-[0-9a-f]{6}$/, '');
  if (!(await slugTaken(em, organisationId, base))) return base;
  for (let i = 0; i < 5; i++) {
    const slug = `${base}-${generateSlug('x', '', 'r').slice(-6)}`;
    if (!(await slugTaken(em, organisationId, slug))) return slug;
  }
  throw slugConflict(base);
}

/** POST /secret-references → `{id, slug, object}`. */
export async function createSecretReference(em: EntityManager, actor: Actor, meta: RequestMeta, box: SecretBox, input: unknown): Promise<CreatedSecretReference> {
  authorize(actor, 'secret_references.create');
  const body = parseWith(createSecretReferenceSchema, input);
  if (body.organisation_id !== undefined && body.organisation_id !== actor.organisationId) {
    throw invalidParameter('organisation_id', 'organisation_id: not the organisation of this API key');
  }
  const auth = checkedAuth(body.manager_type, body.auth_config);
  checkPath(body.manager_type, body.secret_path);
  if (body.allow_all_workspaces === true && body.allowed_workspaces) {
    throw invalidParameter('allowed_workspaces', 'allowed_workspaces: cannot be given with allow_all_workspaces true');
  }
  const allowed = body.allowed_workspaces ? await workspaceIds(em, actor.organisationId, body.allowed_workspaces) : [];
  const allowAll = allowed.length ? false : (body.allow_all_workspaces ?? true);
  try {
    return await em.transactional(async (tx) => {
      let slug: string;
      if (body.slug !== undefined) {
        if (await slugTaken(tx, actor.organisationId, body.slug)) throw slugConflict(body.slug);
        slug = body.slug;
      } else {
        slug = await slugFromName(tx, actor.organisationId, body.name);
      }
      const id = crypto.randomUUID();
      tx.create(SecretReferenceSchema, {
        id,
        organisationId: actor.organisationId,
        name: body.name,
        slug,
        description: body.description ?? null,
        managerType: body.manager_type,
        authConfigSealed: box.seal(JSON.stringify(auth), sealContext(id)),
        secretPath: body.secret_path,
        secretKey: body.secret_key ?? null,
        allowAllWorkspaces: allowAll,
        allowedWorkspaces: allowed,
        tags: body.tags ?? null,
        status: 'ACTIVE',
        createdBy: editorOf(actor),
      });
      recordAudit(tx, actor, meta, {
        action: 'secret_reference.create',
        targetType: 'secret_reference',
        targetId: id,
        details: {
          name: body.name,
          slug,
          manager_type: body.manager_type,
          auth_config_fields: authFields(auth),
          secret_path: body.secret_path,
          secret_key: body.secret_key ?? null,
          allow_all_workspaces: allowAll,
          allowed_workspaces: allowed,
          tags: body.tags ?? null,
        },
      });
      await tx.flush();
      return { id, slug, object: SECRET_REFERENCE_OBJECT };
    });
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw slugConflict(body.slug ?? body.name);
    throw err;
  }
}

/**
 * PUT /secret-references/{id or slug} → `{}`. `auth_config` is merged into the stored one (or
 * replaces it when the auth variant changes) and checked against the reference's manager type;
 * `allow_all_workspaces: true` drops the workspace list; `allowed_workspaces` replaces it and turns
 * allow-all off.
 */
export async function updateSecretReference(em: EntityManager, actor: Actor, meta: RequestMeta, box: SecretBox, idOrSlug: string, input: unknown): Promise<ChangedSecretReference> {
  authorize(actor, 'secret_references.update');
  const body = parseWith(updateSecretReferenceSchema, input);
  if (body.allow_all_workspaces === true && body.allowed_workspaces) {
    throw invalidParameter('allowed_workspaces', 'allowed_workspaces: cannot be given with allow_all_workspaces true');
  }
  const allowed = body.allowed_workspaces ? await workspaceIds(em, actor.organisationId, body.allowed_workspaces) : null;
  try {
    return await em.transactional(async (tx) => {
      const r = await findSecretReference(tx, actor.organisationId, idOrSlug, true);
      const type = r.managerType as ManagerType;
      if (body.auth_config !== undefined) {
        const current = openAuthConfig(box, r);
        const disc = AUTH_DISCRIMINATOR[type];
        const switching = disc !== null && disc in body.auth_config && body.auth_config[disc] !== current[disc];
        const merged = checkedAuth(type, switching ? body.auth_config : { ...current, ...body.auth_config });
        r.authConfigSealed = box.seal(JSON.stringify(merged), sealContext(r.id));
      }
      if (body.secret_path !== undefined) {
        checkPath(type, body.secret_path);
        r.secretPath = body.secret_path;
      }
      if (body.slug !== undefined && body.slug !== r.slug) {
        if (await slugTaken(tx, actor.organisationId, body.slug, r.id)) throw slugConflict(body.slug);
        r.slug = body.slug;
      }
      if (body.name !== undefined) r.name = body.name;
      if (body.description !== undefined) r.description = body.description;
      if (body.secret_key !== undefined) r.secretKey = body.secret_key;
      if (body.tags !== undefined) r.tags = body.tags;
      if (allowed) {
        r.allowedWorkspaces = allowed;
        r.allowAllWorkspaces = false;
      } else if (body.allow_all_workspaces === true) {
        r.allowedWorkspaces = [];
        r.allowAllWorkspaces = true;
      } else if (body.allow_all_workspaces === false && r.allowedWorkspaces.length === 0) {
        // Shared with no workspace at all: allowed, until a list is given.
        r.allowAllWorkspaces = false;
      }
      r.updatedAt = new Date();
      const { auth_config, ...rest } = body;
      recordAudit(tx, actor, meta, {
        action: 'secret_reference.update',
        targetType: 'secret_reference',
        targetId: r.id,
        details: { ...rest, ...(auth_config ? { auth_config_fields: authFields(auth_config) } : {}), ...(allowed ? { allowed_workspaces: allowed } : {}) },
      });
      await tx.flush();
      return { id: r.id };
    });
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw slugConflict(body.slug ?? idOrSlug);
    throw err;
  }
}

/** DELETE /secret-references/{id or slug} → `{}`. */
export async function deleteSecretReference(em: EntityManager, actor: Actor, meta: RequestMeta, idOrSlug: string): Promise<ChangedSecretReference> {
  authorize(actor, 'secret_references.delete');
  return em.transactional(async (tx) => {
    const r = await findSecretReference(tx, actor.organisationId, idOrSlug, true);
    recordAudit(tx, actor, meta, { action: 'secret_reference.delete', targetType: 'secret_reference', targetId: r.id, details: { name: r.name, slug: r.slug } });
    tx.remove(r);
    await tx.flush();
    return { id: r.id };
  });
}
