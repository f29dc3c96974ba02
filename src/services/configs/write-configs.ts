import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { collectGuardrailRefs, parseGatewayConfig, type GatewayConfig } from '../../domain/config/config-schema.ts';
import { AppError, invalidParameter, notFound } from '../../domain/errors.ts';
import { parseWith } from '../../domain/validation.ts';
import { ConfigSchema, ConfigVersionSchema } from '../../persistence/entities/index.ts';
import type { Config } from '../../persistence/entities/config.ts';
import { isOrganisationKey, type Actor, type RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { findWorkspace } from '../workspaces/find-workspace.ts';
import { createConfigSchema, updateConfigSchema } from './config-input.ts';
import { generateConfigSlug } from './config-slug.ts';
import { findConfigForChange } from './find-config.ts';
import { missingGuardrailRefs } from '../guardrails/guardrail-refs.ts';

const conflict = (message: string, param: string | null, code = 'conflict'): AppError => new AppError(409, 'conflict_error', code, message, param);

export interface CreatedConfig {
  id: string;
  slug: string;
  version_id: string;
}

export interface UpdatedConfig {
  id: string;
  version_id: string | null;
}

export interface DeletedConfig {
  id: string;
  slug: string;
}

/** The body checked (400 naming `config.<path>`). */
const checkedShape = (input: unknown): GatewayConfig => parseGatewayConfig(input ?? {}, 'config');

/**
 * Every saved guardrail the config names (by id or slug) must be a live guardrail of the config's
 * workspace or of the organisation (gateway-spec: validated at save time); 400 naming the first missing one.
 */
async function checkGuardrailRefs(em: EntityManager, organisationId: string, workspaceId: string, config: GatewayConfig): Promise<void> {
  const [unknown] = await missingGuardrailRefs(em, organisationId, workspaceId, collectGuardrailRefs(config));
  if (unknown !== undefined) throw invalidParameter('config', `Unknown guardrail: ${unknown}`);
}

const editorOf = (actor: Actor): string => actor.userId ?? actor.keyId;

/** Clears the workspace's current default in the caller's transaction (one default per workspace). */
async function clearDefault(tx: EntityManager, workspaceId: string): Promise<void> {
  await tx.nativeUpdate(ConfigSchema, { workspaceId, isDefault: 1, deletedAt: null }, { isDefault: 0 });
}

/** POST /configs → `{id, version_id}`: the config and its version 1, in one transaction. */
export async function createConfig(em: EntityManager, actor: Actor, meta: RequestMeta, input: unknown): Promise<CreatedConfig> {
  authorize(actor, 'configs.create');
  const body = parseWith(createConfigSchema, input);
  let workspaceId: string;
  if (body.workspace_id) {
    const ws = await findWorkspace(em, actor.organisationId, body.workspace_id);
    if (!ws) throw notFound('Workspace', 'workspace_id');
    workspaceId = ws.id;
  } else if (!isOrganisationKey(actor) && actor.workspaceId) {
    workspaceId = actor.workspaceId;
  } else {
    throw invalidParameter('workspace_id', 'workspace_id: required for organisation API keys');
  }
  authorize(actor, 'configs.create', { workspaceId });
  const config = checkedShape(body.config);
  const name = body.name ?? 'Untitled config';
  try {
    return await em.transactional(async (tx) => {
      await checkGuardrailRefs(tx, actor.organisationId, workspaceId, config);
      let slug = generateConfigSlug(name);
      for (let i = 0; i < 5 && (await tx.count(ConfigSchema, { organisationId: actor.organisationId, slug })); i++) slug = generateConfigSlug(name);
      if (body.isDefault === 1) await clearDefault(tx, workspaceId);
      const id = crypto.randomUUID();
      const versionId = crypto.randomUUID();
      tx.create(ConfigSchema, {
        id,
        organisationId: actor.organisationId,
        workspaceId,
        name,
        slug,
        isDefault: body.isDefault ?? 0,
        status: 'active',
        ownerId: editorOf(actor),
        updatedBy: editorOf(actor),
        currentVersionId: versionId,
      });
      // Scalar foreign keys carry no ordering hints: the config row goes first.
      await tx.flush();
      tx.create(ConfigVersionSchema, { id: versionId, configId: id, version: 1, config: config as Record<string, unknown>, format: 'json', createdBy: editorOf(actor) });
      recordAudit(tx, actor, meta, {
        action: 'config.create',
        targetType: 'config',
        targetId: id,
        workspaceId,
        details: { name, slug, workspace_id: workspaceId, is_default: body.isDefault ?? 0, version_id: versionId, config },
      });
      await tx.flush();
      return { id, slug, version_id: versionId };
    });
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw conflict('A concurrent change conflicted with this one; retry', null);
    throw err;
  }
}

async function lockedForChange(tx: EntityManager, actor: Actor, idOrSlug: string, scope: string): Promise<Config> {
  const cfg = await findConfigForChange(tx, actor, idOrSlug);
  authorize(actor, scope, { workspaceId: cfg.workspaceId });
  return cfg;
}

/** PUT /configs/{id or slug}: given fields replace; a `config` makes a new version. → `{version_id}` (the current one). */
export async function updateConfig(em: EntityManager, actor: Actor, meta: RequestMeta, idOrSlug: string, input: unknown): Promise<UpdatedConfig> {
  authorize(actor, 'configs.update');
  const body = parseWith(updateConfigSchema, input);
  const config = body.config === undefined ? undefined : checkedShape(body.config);
  return em.transactional(async (tx) => {
    const cfg = await lockedForChange(tx, actor, idOrSlug, 'configs.update');
    if (config !== undefined) await checkGuardrailRefs(tx, cfg.organisationId, cfg.workspaceId, config);
    let versionId: string | null = null;
    if (config !== undefined) {
      const version = (await tx.count(ConfigVersionSchema, { configId: cfg.id })) + 1;
      versionId = crypto.randomUUID();
      tx.create(ConfigVersionSchema, { id: versionId, configId: cfg.id, version, config: config as Record<string, unknown>, format: 'json', createdBy: editorOf(actor) });
      cfg.currentVersionId = versionId;
    }
    if (body.name !== undefined) cfg.name = body.name;
    if (body.status !== undefined) cfg.status = body.status;
    cfg.updatedBy = editorOf(actor);
    cfg.updatedAt = new Date();
    recordAudit(tx, actor, meta, {
      action: 'config.update',
      targetType: 'config',
      targetId: cfg.id,
      workspaceId: cfg.workspaceId,
      details: { ...body, ...(config !== undefined ? { config, version_id: versionId } : {}) },
    });
    await tx.flush();
    return { id: cfg.id, version_id: versionId ?? cfg.currentVersionId ?? null };
  });
}

/** DELETE /configs/{id or slug}: a soft delete; refused while a workspace names it as its user keys' default config. */
export async function deleteConfig(em: EntityManager, actor: Actor, meta: RequestMeta, idOrSlug: string): Promise<DeletedConfig> {
  authorize(actor, 'configs.delete');
  return em.transactional(async (tx) => {
    const cfg = await lockedForChange(tx, actor, idOrSlug, 'configs.delete');
    const users = await tx.execute<{ slug: string }[]>(
      `select slug from workspace where organisation_id = ? and defaults->>'user_api_key_config' in (?, ?) order by slug`,
      [cfg.organisationId, cfg.id, cfg.slug],
    );
    if (users.length) {
      throw conflict(`The config is the user_api_key_config default of workspace ${users.map((w) => w.slug).join(', ')}`, 'id', 'config_in_use');
    }
    cfg.deletedAt = new Date();
    cfg.isDefault = 0;
    cfg.updatedBy = editorOf(actor);
    recordAudit(tx, actor, meta, {
      action: 'config.delete',
      targetType: 'config',
      targetId: cfg.id,
      workspaceId: cfg.workspaceId,
      details: { name: cfg.name, slug: cfg.slug },
    });
    await tx.flush();
    return { id: cfg.id, slug: cfg.slug };
  });
}
