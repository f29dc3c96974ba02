import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, notFound } from '../../domain/errors.ts';
import { generateSlug } from '../../domain/slug.ts';
import { parseWith } from '../../domain/validation.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import { McpIntegrationSchema, McpServerSchema } from '../../persistence/entities/index.ts';
import type { McpIntegration } from '../../persistence/entities/mcp-integration.ts';
import { isOrganisationKey, type Actor, type RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { findWorkspace } from '../workspaces/find-workspace.ts';
import { findIntegrationForChange } from './find-mcp-integration.ts';
import { createMcpIntegrationSchema, updateMcpIntegrationSchema } from './mcp-integration-input.ts';
import { integrationSecretContext, keepMaskedSecrets, maskConfigurations } from './mcp-secrets.ts';

export const conflict = (message: string, param: string | null, code = 'conflict'): AppError => new AppError(409, 'conflict_error', code, message, param);

export interface CreatedMcpIntegration {
  id: string;
  slug: string;
}

const editorOf = (actor: Actor): string => actor.userId ?? actor.keyId;

/** The stored configurations, opened (null when none). */
export function openConfigurations(box: SecretBox, i: McpIntegration): Record<string, unknown> | null {
  return i.configurationsSealed ? (JSON.parse(box.open(i.configurationsSealed, integrationSecretContext(i.id))) as Record<string, unknown>) : null;
}

function setConfigurations(box: SecretBox, i: { id: string; configurations?: Record<string, unknown> | null; configurationsSealed?: string | null }, conf: Record<string, unknown> | null): void {
  i.configurations = conf ? maskConfigurations(conf) : null;
  i.configurationsSealed = conf ? box.seal(JSON.stringify(conf), integrationSecretContext(i.id)) : null;
}

/**
 * POST /mcp-integrations → `{id, slug}`. With a workspace key, or an organisation key naming a
 * workspace, the integration belongs to that workspace; an organisation key without one makes an
 * organisation-level integration (control-plane-schemas 2.18).
 */
export async function createMcpIntegration(em: EntityManager, box: SecretBox, actor: Actor, meta: RequestMeta, input: unknown): Promise<CreatedMcpIntegration> {
  authorize(actor, 'mcp_integrations.create');
  const body = parseWith(createMcpIntegrationSchema, input);
  if (body.organisation_id && body.organisation_id !== actor.organisationId) throw notFound('Organisation', 'organisation_id');
  let workspaceId: string | null = null;
  if (body.workspace_id) {
    const ws = await findWorkspace(em, actor.organisationId, body.workspace_id);
    if (!ws) throw notFound('Workspace', 'workspace_id');
    workspaceId = ws.id;
  } else if (!isOrganisationKey(actor)) {
    workspaceId = actor.workspaceId;
  }
  authorize(actor, 'mcp_integrations.create', { workspaceId });
  try {
    return await em.transactional(async (tx) => {
      let slug = body.slug ?? generateSlug('mcp', body.name, 'integration');
      if (body.slug) {
        if (await tx.count(McpIntegrationSchema, { organisationId: actor.organisationId, slug })) throw conflict(`The slug ${slug} is taken`, 'slug', 'slug_taken');
      } else {
        for (let n = 0; n < 5 && (await tx.count(McpIntegrationSchema, { organisationId: actor.organisationId, slug })); n++) slug = generateSlug('mcp', body.name, 'integration');
      }
      const id = crypto.randomUUID();
      const row = tx.create(McpIntegrationSchema, {
        id,
        organisationId: actor.organisationId,
        workspaceId,
        name: body.name,
        slug,
        description: body.description ?? null,
        url: body.url,
        authType: body.auth_type,
        transport: body.transport,
        status: 'active',
        secretMappings: body.secret_mappings ?? [],
        ownerId: editorOf(actor),
      });
      setConfigurations(box, row, body.configurations ?? null);
      recordAudit(tx, actor, meta, {
        action: 'mcp_integration.create',
        targetType: 'mcp_integration',
        targetId: id,
        workspaceId,
        details: { ...body, slug, workspace_id: workspaceId, configurations: row.configurations },
      });
      await tx.flush();
      return { id, slug };
    });
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw conflict('A concurrent change took this slug; retry', 'slug', 'slug_taken');
    throw err;
  }
}

/** The integration locked and authorized for `scope` (organisation-level ones need an organisation key). */
export async function lockedIntegration(tx: EntityManager, actor: Actor, idOrSlug: string, scope: string): Promise<McpIntegration> {
  const i = await findIntegrationForChange(tx, actor, idOrSlug);
  authorize(actor, scope, { workspaceId: i.workspaceId ?? null });
  return i;
}

/** PUT /mcp-integrations/{id}: given fields replace; secrets sent back as their masks are kept. → `{}`. */
export async function updateMcpIntegration(em: EntityManager, box: SecretBox, actor: Actor, meta: RequestMeta, idOrSlug: string, input: unknown): Promise<{ id: string }> {
  authorize(actor, 'mcp_integrations.update');
  const body = parseWith(updateMcpIntegrationSchema, input);
  return em.transactional(async (tx) => {
    const i = await lockedIntegration(tx, actor, idOrSlug, 'mcp_integrations.update');
    if (body.name !== undefined) i.name = body.name;
    if (body.description !== undefined) i.description = body.description;
    if (body.url !== undefined) i.url = body.url;
    if (body.auth_type !== undefined) i.authType = body.auth_type;
    if (body.transport !== undefined) i.transport = body.transport;
    if (body.secret_mappings !== undefined) i.secretMappings = body.secret_mappings;
    if (body.configurations !== undefined) {
      setConfigurations(box, i, body.configurations === null ? null : keepMaskedSecrets(body.configurations, openConfigurations(box, i)));
    }
    i.updatedAt = new Date();
    recordAudit(tx, actor, meta, {
      action: 'mcp_integration.update',
      targetType: 'mcp_integration',
      targetId: i.id,
      workspaceId: i.workspaceId ?? null,
      details: { ...body, ...(body.configurations !== undefined ? { configurations: i.configurations } : {}) },
    });
    await tx.flush();
    return { id: i.id };
  });
}

/** DELETE /mcp-integrations/{id}: refused (409) while MCP servers are built on it. → `{}`. */
export async function deleteMcpIntegration(em: EntityManager, actor: Actor, meta: RequestMeta, idOrSlug: string): Promise<{ id: string }> {
  authorize(actor, 'mcp_integrations.delete');
  return em.transactional(async (tx) => {
    const i = await lockedIntegration(tx, actor, idOrSlug, 'mcp_integrations.delete');
    const servers = await tx.find(McpServerSchema, { integrationId: i.id }, { orderBy: { slug: 'asc' }, limit: 10 });
    if (servers.length) throw conflict(`MCP servers use this integration: ${servers.map((s) => s.slug).join(', ')}`, 'id', 'mcp_integration_in_use');
    recordAudit(tx, actor, meta, { action: 'mcp_integration.delete', targetType: 'mcp_integration', targetId: i.id, workspaceId: i.workspaceId ?? null, details: { name: i.name, slug: i.slug } });
    tx.remove(i);
    await tx.flush();
    return { id: i.id };
  });
}

export const notOrganisationLevel = (): AppError =>
  new AppError(400, 'invalid_request_error', 'workspace_integration', 'Workspace access applies to organisation-level integrations only', 'id');

