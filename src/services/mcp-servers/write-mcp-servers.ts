import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, invalidParameter, notFound } from '../../domain/errors.ts';
import { generateSlug } from '../../domain/slug.ts';
import { parseWith } from '../../domain/validation.ts';
import { McpIntegrationSchema, McpServerSchema } from '../../persistence/entities/index.ts';
import { isOrganisationKey, type Actor, type RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { byIdOrSlug } from '../mcp-integrations/find-mcp-integration.ts';
import { isAvailableIn } from '../mcp-integrations/integration-access.ts';
import { conflict } from '../mcp-integrations/write-mcp-integrations.ts';
import { findWorkspace } from '../workspaces/find-workspace.ts';
import { lockedServer } from './find-mcp-server.ts';
import { createMcpServerSchema, updateMcpServerSchema } from './mcp-server-input.ts';

/** A generated server slug: `mcp-<name>-<hex>`, within the 3–50 of control-plane-schemas 2.18. */
function serverSlug(name: string): string {
  const slug = generateSlug('mcp', name.slice(0, 30), 'server');
  return slug.length <= 50 ? slug : generateSlug('mcp', '', 'server');
}

/** POST /mcp-servers → `{id, slug}`: an instance of an integration the workspace may use. */
export async function createMcpServer(em: EntityManager, actor: Actor, meta: RequestMeta, input: unknown): Promise<{ id: string; slug: string }> {
  authorize(actor, 'mcp_servers.create');
  const body = parseWith(createMcpServerSchema, input);
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
  authorize(actor, 'mcp_servers.create', { workspaceId });
  const integration = await em.findOne(McpIntegrationSchema, { ...byIdOrSlug(body.mcp_integration_id), organisationId: actor.organisationId });
  if (!integration) throw notFound('MCP integration', 'mcp_integration_id');
  if (!(await isAvailableIn(em, integration, workspaceId))) {
    // A workspace key does not see integrations its workspace may not use.
    if (!isOrganisationKey(actor)) throw notFound('MCP integration', 'mcp_integration_id');
    throw new AppError(400, 'invalid_request_error', 'mcp_integration_not_available', 'The MCP integration is not available to this workspace', 'mcp_integration_id');
  }
  try {
    return await em.transactional(async (tx) => {
      let slug = body.slug ?? serverSlug(body.name);
      if (body.slug) {
        if (await tx.count(McpServerSchema, { organisationId: actor.organisationId, slug })) throw conflict(`The slug ${slug} is taken`, 'slug', 'slug_taken');
      } else {
        for (let n = 0; n < 5 && (await tx.count(McpServerSchema, { organisationId: actor.organisationId, slug })); n++) slug = serverSlug(body.name);
      }
      const id = crypto.randomUUID();
      tx.create(McpServerSchema, {
        id,
        organisationId: actor.organisationId,
        workspaceId,
        integrationId: integration.id,
        name: body.name,
        slug,
        description: body.description ?? null,
        status: 'active',
        defaultUserAccess: 'allow',
        ownerId: actor.userId ?? actor.keyId,
      });
      recordAudit(tx, actor, meta, {
        action: 'mcp_server.create',
        targetType: 'mcp_server',
        targetId: id,
        workspaceId,
        details: { name: body.name, slug, description: body.description ?? null, mcp_integration_id: integration.id, workspace_id: workspaceId },
      });
      await tx.flush();
      return { id, slug };
    });
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw conflict('A concurrent change took this slug; retry', 'slug', 'slug_taken');
    throw err;
  }
}

/** PUT /mcp-servers/{id}: name and description. → `{}`. */
export async function updateMcpServer(em: EntityManager, actor: Actor, meta: RequestMeta, idOrSlug: string, input: unknown): Promise<{ id: string }> {
  authorize(actor, 'mcp_servers.update');
  const body = parseWith(updateMcpServerSchema, input);
  return em.transactional(async (tx) => {
    const s = await lockedServer(tx, actor, idOrSlug, 'mcp_servers.update');
    if (body.name !== undefined) s.name = body.name;
    if (body.description !== undefined) s.description = body.description;
    s.updatedAt = new Date();
    recordAudit(tx, actor, meta, { action: 'mcp_server.update', targetType: 'mcp_server', targetId: s.id, workspaceId: s.workspaceId, details: body });
    await tx.flush();
    return { id: s.id };
  });
}

/** DELETE /mcp-servers/{id}: the server with its capability flags, user access and connections. → `{}`. */
export async function deleteMcpServer(em: EntityManager, actor: Actor, meta: RequestMeta, idOrSlug: string): Promise<{ id: string }> {
  authorize(actor, 'mcp_servers.delete');
  return em.transactional(async (tx) => {
    const s = await lockedServer(tx, actor, idOrSlug, 'mcp_servers.delete');
    recordAudit(tx, actor, meta, { action: 'mcp_server.delete', targetType: 'mcp_server', targetId: s.id, workspaceId: s.workspaceId, details: { name: s.name, slug: s.slug } });
    tx.remove(s);
    await tx.flush();
    return { id: s.id };
  });
}
