import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, forbidden, notFound } from '../../domain/errors.ts';
import type { GuardrailCheck } from '../../domain/guardrails/guardrail-schema.ts';
import { parseWith } from '../../domain/validation.ts';
import { GuardrailSchema, GuardrailVersionSchema } from '../../persistence/entities/index.ts';
import type { Guardrail } from '../../persistence/entities/guardrail.ts';
import { isOrganisationKey, type Actor, type RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { findWorkspace } from '../workspaces/find-workspace.ts';
import { findGuardrailForChange, guardrailScope } from './find-guardrail.ts';
import { createGuardrailSchema, updateGuardrailSchema } from './guardrail-input.ts';
import { generateGuardrailSlug } from './guardrail-slug.ts';
import { keepMaskedHeaders, maskChecks } from './guardrail-view.ts';

const conflict = (message: string, param: string | null, code = 'conflict'): AppError => new AppError(409, 'conflict_error', code, message, param);

/** Create answer: ids plus `created_at` and `created_by` (gateway-spec, "Policies, guardrails, configs"). */
export interface CreatedGuardrail {
  id: string;
  slug: string;
  version_id: string;
  created_at: string;
  created_by: string;
}

export interface UpdatedGuardrail {
  id: string;
  slug: string;
  version_id: string | null;
}

export interface DeletedGuardrail {
  id: string;
  slug: string;
}

const editorOf = (actor: Actor): string => actor.userId ?? actor.keyId;

/** Where a new guardrail lives: a workspace (id) or the organisation (null). */
async function targetOf(em: EntityManager, actor: Actor, body: { workspace_id?: string; organisation_id?: string }): Promise<string | null> {
  if (body.organisation_id !== undefined && body.organisation_id !== actor.organisationId) throw notFound('Organisation', 'organisation_id');
  if (body.workspace_id) {
    const ws = await findWorkspace(em, actor.organisationId, body.workspace_id);
    if (!ws) throw notFound('Workspace', 'workspace_id');
    return ws.id;
  }
  // Workspace keys: the key's workspace (control-plane-schemas §0). Organisation keys: the organisation.
  return isOrganisationKey(actor) ? null : actor.workspaceId;
}

/** POST /guardrails → `{id, slug, version_id, created_at, created_by}`: the guardrail and its version 1, in one transaction. */
export async function createGuardrail(em: EntityManager, actor: Actor, meta: RequestMeta, input: unknown): Promise<CreatedGuardrail> {
  const body = parseWith(createGuardrailSchema, input);
  const workspaceId = await targetOf(em, actor, body);
  authorize(actor, guardrailScope(workspaceId, 'create'), { workspaceId });
  if (!workspaceId && !isOrganisationKey(actor)) throw forbidden('Organisation guardrails need an organisation API key.', 'organisation_key_required');
  try {
    return await em.transactional(async (tx) => {
      let slug = generateGuardrailSlug(body.name);
      for (let i = 0; i < 5 && (await tx.count(GuardrailSchema, { organisationId: actor.organisationId, slug })); i++) slug = generateGuardrailSlug(body.name);
      const id = crypto.randomUUID();
      const versionId = crypto.randomUUID();
      const createdAt = new Date();
      tx.create(GuardrailSchema, {
        id,
        organisationId: actor.organisationId,
        workspaceId,
        name: body.name,
        slug,
        status: 'active',
        checks: body.checks as unknown as Record<string, unknown>[],
        actions: body.actions as unknown as Record<string, unknown>,
        currentVersionId: versionId,
        ownerId: editorOf(actor),
        updatedBy: editorOf(actor),
        createdAt,
        updatedAt: createdAt,
      });
      // Scalar foreign keys carry no ordering hints: the guardrail row goes first.
      await tx.flush();
      tx.create(GuardrailVersionSchema, {
        id: versionId,
        guardrailId: id,
        version: 1,
        name: body.name,
        checks: body.checks as unknown as Record<string, unknown>[],
        actions: body.actions as unknown as Record<string, unknown>,
        createdBy: editorOf(actor),
        createdAt,
      });
      recordAudit(tx, actor, meta, {
        action: 'guardrail.create',
        targetType: 'guardrail',
        targetId: id,
        workspaceId,
        details: { name: body.name, slug, workspace_id: workspaceId, version_id: versionId, checks: maskChecks(body.checks), actions: body.actions },
      });
      await tx.flush();
      return { id, slug, version_id: versionId, created_at: createdAt.toISOString(), created_by: editorOf(actor) };
    });
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw conflict('A concurrent change conflicted with this one; retry', null);
    throw err;
  }
}

/** PUT /guardrails/{id or slug}: given fields replace and make a new version. → `{id, slug, version_id}`. */
export async function updateGuardrail(em: EntityManager, actor: Actor, meta: RequestMeta, idOrSlug: string, input: unknown): Promise<UpdatedGuardrail> {
  const body = parseWith(updateGuardrailSchema, input);
  return em.transactional(async (tx) => {
    const g = await findGuardrailForChange(tx, actor, idOrSlug, 'update');
    if (body.name === undefined && body.checks === undefined && body.actions === undefined) {
      return { id: g.id, slug: g.slug, version_id: g.currentVersionId ?? null };
    }
    const checks = body.checks === undefined ? (g.checks as unknown as GuardrailCheck[]) : keepMaskedHeaders(body.checks, g.checks as unknown as GuardrailCheck[]);
    const version = (await tx.count(GuardrailVersionSchema, { guardrailId: g.id })) + 1;
    const versionId = crypto.randomUUID();
    if (body.name !== undefined) g.name = body.name;
    g.checks = checks as unknown as Record<string, unknown>[];
    if (body.actions !== undefined) g.actions = body.actions as unknown as Record<string, unknown>;
    g.currentVersionId = versionId;
    g.updatedBy = editorOf(actor);
    g.updatedAt = new Date();
    tx.create(GuardrailVersionSchema, { id: versionId, guardrailId: g.id, version, name: g.name, checks: g.checks, actions: g.actions, createdBy: editorOf(actor) });
    recordAudit(tx, actor, meta, {
      action: 'guardrail.update',
      targetType: 'guardrail',
      targetId: g.id,
      workspaceId: g.workspaceId ?? null,
      details: {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.checks !== undefined ? { checks: maskChecks(checks) } : {}),
        ...(body.actions !== undefined ? { actions: body.actions } : {}),
        version_id: versionId,
      },
    });
    await tx.flush();
    return { id: g.id, slug: g.slug, version_id: versionId };
  });
}

/** What still names the guardrail: organisation defaults, workspace defaults and the current version of live configs. */
async function usesOf(tx: EntityManager, g: Guardrail): Promise<string[]> {
  const conn = tx; // em.execute runs in the transaction (getConnection().execute would not)
  const uses: string[] = [];
  // `?` is the driver's placeholder: jsonb containment and jsonpath filters go through parameters.
  const [defaults] = await conn.execute<{ n: string }[]>(
    `select count(*)::text n from organisation_guardrail_defaults
      where organisation_id = ? and (input_guardrails @> jsonb_build_array(?::text) or output_guardrails @> jsonb_build_array(?::text))`,
    [g.organisationId, g.id, g.id],
  );
  if (Number(defaults?.n ?? 0) > 0) uses.push('the organisation defaults');
  const workspaces = await conn.execute<{ slug: string }[]>(
    `select slug from workspace where organisation_id = ? and exists (
      select 1 from jsonb_array_elements_text(coalesce(defaults->'input_guardrails', '[]') || coalesce(defaults->'output_guardrails', '[]')) r where r in (?, ?))
      order by slug`,
    [g.organisationId, g.id, g.slug],
  );
  if (workspaces.length) uses.push(`the defaults of workspace ${workspaces.map((w) => w.slug).join(', ')}`);
  const configs = await conn.execute<{ slug: string }[]>(
    `select c.slug from config c join config_version v on v.id = c.current_version_id
      where c.organisation_id = ? and c.deleted_at is null and jsonb_path_exists(v.config, ?::jsonpath, jsonb_build_object('id', ?::text, 'slug', ?::text))
      order by c.slug`,
    [g.organisationId, '$.**.input_guardrails[*] ? (@ == $id || @ == $slug)', g.id, g.slug],
  );
  const outputConfigs = await conn.execute<{ slug: string }[]>(
    `select c.slug from config c join config_version v on v.id = c.current_version_id
      where c.organisation_id = ? and c.deleted_at is null and jsonb_path_exists(v.config, ?::jsonpath, jsonb_build_object('id', ?::text, 'slug', ?::text))
      order by c.slug`,
    [g.organisationId, '$.**.output_guardrails[*] ? (@ == $id || @ == $slug)', g.id, g.slug],
  );
  for (const c of outputConfigs) if (!configs.some((x) => x.slug === c.slug)) configs.push(c);
  if (configs.length) uses.push(`config ${configs.map((c) => c.slug).join(', ')}`);
  return uses;
}

/** DELETE /guardrails/{id or slug}: a soft delete; refused (409) while defaults or configs name it. */
export async function deleteGuardrail(em: EntityManager, actor: Actor, meta: RequestMeta, idOrSlug: string): Promise<DeletedGuardrail> {
  return em.transactional(async (tx) => {
    const g = await findGuardrailForChange(tx, actor, idOrSlug, 'delete');
    const uses = await usesOf(tx, g);
    if (uses.length) throw conflict(`The guardrail is used by ${uses.join('; ')}`, 'id', 'guardrail_in_use');
    g.deletedAt = new Date();
    g.updatedBy = editorOf(actor);
    recordAudit(tx, actor, meta, {
      action: 'guardrail.delete',
      targetType: 'guardrail',
      targetId: g.id,
      workspaceId: g.workspaceId ?? null,
      details: { name: g.name, slug: g.slug },
    });
    await tx.flush();
    return { id: g.id, slug: g.slug };
  });
}
