import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidParameter, notFound } from '../../domain/errors.ts';
import { parseWith } from '../../domain/validation.ts';
import { McpCapabilitySchema, McpIntegrationWorkspaceSchema } from '../../persistence/entities/index.ts';
import type { Actor, RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { findWorkspace } from '../workspaces/find-workspace.ts';
import { countCapabilities, type CapabilityCounts } from './capability-view.ts';
import { syncMcpIntegrationSchema, updateCapabilitiesSchema, updateMcpIntegrationWorkspacesSchema } from './mcp-integration-input.ts';
import { lockedIntegration, notOrganisationLevel } from './write-mcp-integrations.ts';

/**
 * PUT /mcp-integrations/{id}/workspaces: sets access rows (merged, or replacing every row with
 * `override_existing_workspace_access`) and the global access switch. → `{success}`.
 */
export async function updateMcpIntegrationWorkspaces(em: EntityManager, actor: Actor, meta: RequestMeta, idOrSlug: string, input: unknown): Promise<{ success: boolean }> {
  authorize(actor, 'mcp_integrations.update');
  const body = parseWith(updateMcpIntegrationWorkspacesSchema, input);
  return em.transactional(async (tx) => {
    const i = await lockedIntegration(tx, actor, idOrSlug, 'mcp_integrations.update');
    if (i.workspaceId) throw notOrganisationLevel();
    const wanted = new Map<string, boolean>();
    for (const [n, w] of body.workspaces.entries()) {
      const ws = await findWorkspace(tx, actor.organisationId, w.id);
      if (!ws) throw notFound('Workspace', `workspaces[${n}].id`);
      wanted.set(ws.id, w.enabled);
    }
    if (body.override_existing_workspace_access) {
      await tx.nativeDelete(McpIntegrationWorkspaceSchema, { integrationId: i.id, ...(wanted.size ? { workspaceId: { $nin: [...wanted.keys()] } } : {}) });
    }
    for (const [workspaceId, enabled] of wanted) {
      await tx.getConnection().execute(
        `insert into mcp_integration_workspace (integration_id, workspace_id, enabled) values (?, ?, ?)
         on conflict (integration_id, workspace_id) do update set enabled = excluded.enabled, updated_at = now()`,
        [i.id, workspaceId, enabled],
        'run',
        tx.getTransactionContext(),
      );
    }
    if (body.global_workspace_access !== undefined) {
      i.globalWorkspaceAccess = body.global_workspace_access === null ? null : { ...(i.globalWorkspaceAccess ?? {}), enabled: body.global_workspace_access.enabled };
      i.updatedAt = new Date();
    }
    recordAudit(tx, actor, meta, {
      action: 'mcp_integration.workspaces.update',
      targetType: 'mcp_integration',
      targetId: i.id,
      details: { workspaces: [...wanted].map(([id, enabled]) => ({ id, enabled })), global_workspace_access: body.global_workspace_access, override_existing_workspace_access: body.override_existing_workspace_access },
    });
    await tx.flush();
    return { success: true };
  });
}

/** PUT /mcp-integrations/{id}/capabilities: enable/disable discovered capabilities at integration level. → `{success}`. */
export async function updateMcpIntegrationCapabilities(em: EntityManager, actor: Actor, meta: RequestMeta, idOrSlug: string, input: unknown): Promise<{ success: boolean }> {
  authorize(actor, 'mcp_integrations.update');
  const body = parseWith(updateCapabilitiesSchema, input);
  return em.transactional(async (tx) => {
    const i = await lockedIntegration(tx, actor, idOrSlug, 'mcp_integrations.update');
    const caps = await tx.find(McpCapabilitySchema, { integrationId: i.id });
    for (const [n, c] of body.capabilities.entries()) {
      const cap = caps.find((x) => x.type === c.type && x.name === c.name);
      if (!cap) throw invalidParameter(`capabilities[${n}].name`, `capabilities[${n}].name: no ${c.type} named ${c.name} was discovered on this integration`);
      if (cap.enabled !== c.enabled) {
        cap.enabled = c.enabled;
        cap.updatedAt = new Date();
      }
    }
    recordAudit(tx, actor, meta, { action: 'mcp_integration.capabilities.update', targetType: 'mcp_integration', targetId: i.id, workspaceId: i.workspaceId ?? null, details: body });
    await tx.flush();
    return { success: true };
  });
}

const LISTS = [
  ['tools', 'tool'],
  ['prompts', 'prompt'],
  ['resources', 'resource'],
  ['resource_templates', 'resource_template'],
] as const;

/**
 * POST /mcp-integrations/{id}/sync (draft route): records what a gateway discovered on the
 * upstream server. Each list given replaces that type; names that stay keep their enable flag.
 */
export async function syncMcpIntegration(em: EntityManager, actor: Actor, meta: RequestMeta, idOrSlug: string, input: unknown): Promise<{ success: boolean; counts: CapabilityCounts }> {
  authorize(actor, 'mcp_integrations.update');
  const body = parseWith(syncMcpIntegrationSchema, input);
  return em.transactional(async (tx) => {
    const i = await lockedIntegration(tx, actor, idOrSlug, 'mcp_integrations.update');
    if (body.server_name !== undefined) i.serverName = body.server_name;
    if (body.server_version !== undefined) i.serverVersion = body.server_version;
    if (body.protocol_version !== undefined) i.protocolVersion = body.protocol_version;
    if (body.capability_flags !== undefined) i.capabilityFlags = body.capability_flags;
    i.syncError = body.sync_error ?? null;
    i.syncStatus = body.sync_error ? 'failed' : 'synced';
    i.lastSyncedAt = new Date();
    const existing = await tx.find(McpCapabilitySchema, { integrationId: i.id });
    for (const [field, type] of LISTS) {
      const list = body[field];
      if (!list) continue;
      const names = new Set<string>();
      for (const [n, item] of list.entries()) {
        if (names.has(item.name)) throw invalidParameter(`${field}[${n}].name`, `${field}[${n}].name: duplicate ${type} ${item.name}`);
        names.add(item.name);
        const { name, title, description, ...details } = item;
        const cap = existing.find((c) => c.type === type && c.name === name);
        if (cap) {
          Object.assign(cap, { title: title ?? null, description: description ?? null, details, updatedAt: new Date() });
        } else {
          existing.push(tx.create(McpCapabilitySchema, { id: crypto.randomUUID(), integrationId: i.id, type, name, title: title ?? null, description: description ?? null, details, enabled: true }));
        }
      }
      for (const gone of existing.filter((c) => c.type === type && !names.has(c.name))) tx.remove(gone);
    }
    recordAudit(tx, actor, meta, {
      action: 'mcp_integration.sync',
      targetType: 'mcp_integration',
      targetId: i.id,
      workspaceId: i.workspaceId ?? null,
      details: { server_name: i.serverName, sync_status: i.syncStatus, ...Object.fromEntries(LISTS.filter(([f]) => body[f]).map(([f]) => [f, body[f]!.length])) },
    });
    await tx.flush();
    const kept = await tx.find(McpCapabilitySchema, { integrationId: i.id });
    return { success: true, counts: countCapabilities(kept) };
  });
}
