// What the MCP gateway (later) needs to serve `{gateway}/mcp/{slug}/mcp` for a workspace: the
// upstream URL, transport and decrypted auth, the capabilities enabled at both integration and
// server level, and who may use it. Type `mcp_server`, key `<workspace_id>:<slug>`, as migration
// 0010's triggers write them (also on integration, capability, access and user-access changes).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { SecretBox } from '../../platform/secret-box.ts';
import { McpCapabilitySchema, McpIntegrationSchema, McpServerCapabilitySchema, McpServerSchema, McpServerUserAccessSchema } from '../../persistence/entities/index.ts';
import { isAvailableIn } from '../mcp-integrations/integration-access.ts';
import { openConfigurations } from '../mcp-integrations/write-mcp-integrations.ts';
import { latestChangeVersion, type WorkerResolver } from '../sync/worker-resolver.ts';

export const MCP_SERVER_RESOURCE = 'mcp_server';

/** null when the key names no server, or its workspace may no longer use the integration. */
export function createMcpServerResolver(box: SecretBox): WorkerResolver {
  return {
    type: MCP_SERVER_RESOURCE,
    async resolve(em: EntityManager, key: string) {
      const sep = key.indexOf(':');
      if (sep < 0) return null;
      const workspaceId = key.slice(0, sep);
      const slug = key.slice(sep + 1);
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(workspaceId)) return null;
      const s = await em.findOne(McpServerSchema, { workspaceId, slug });
      if (!s) return null;
      const i = await em.findOne(McpIntegrationSchema, { id: s.integrationId });
      if (!i || !(await isAvailableIn(em, i, s.workspaceId))) return null;
      const conf = openConfigurations(box, i) ?? {};
      const caps = await em.find(McpCapabilitySchema, { integrationId: i.id }, { orderBy: { type: 'asc', name: 'asc' } });
      const own = new Map((await em.find(McpServerCapabilitySchema, { serverId: s.id })).map((o) => [o.capabilityId, o.enabled]));
      const users = await em.find(McpServerUserAccessSchema, { serverId: s.id }, { orderBy: { userId: 'asc' } });
      const customHeaders = conf.custom_headers && typeof conf.custom_headers === 'object' ? (conf.custom_headers as Record<string, string>) : {};
      return {
        version: await latestChangeVersion(em, MCP_SERVER_RESOURCE, key),
        payload: {
          id: s.id,
          slug: s.slug,
          name: s.name,
          organisation_id: s.organisationId,
          workspace_id: s.workspaceId,
          status: s.status === 'active' && i.status === 'active' ? 'active' : 'inactive',
          integration: { id: i.id, slug: i.slug },
          url: i.url,
          transport: i.transport,
          auth: { type: i.authType, headers: customHeaders, configurations: conf },
          passthrough_header: conf.passthrough_header ?? {},
          secret_mappings: i.secretMappings,
          // Enabled = enabled on the integration and not disabled on the server.
          capabilities: caps.filter((c) => c.enabled && own.get(c.id) !== false).map((c) => ({ type: c.type, name: c.name })),
          user_access: { default: s.defaultUserAccess, overrides: users.map((u) => ({ user_id: u.userId, enabled: u.enabled })) },
        },
      };
    },
  };
}
