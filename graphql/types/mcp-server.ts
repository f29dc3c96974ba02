import type { McpIntegrationDetailsView, McpServerView } from '../../src/services/mcp-servers/mcp-server-view.ts';
import { listMcpServerConnections, listMcpServerUserAccess, type McpConnectionView, type McpUserAccessPage, type McpUserAccessView } from '../../src/services/mcp-servers/read-mcp-server-users.ts';
import { getMcpServer, listMcpServerCapabilities, listMcpServers } from '../../src/services/mcp-servers/read-mcp-servers.ts';
import { getMcpServerMetadata, testMcpIntegration, testMcpServer, type McpTestResult } from '../../src/services/mcp-servers/test-mcp-server.ts';
import { deleteMcpServerConnection, updateMcpServerCapabilities, updateMcpServerUserAccess } from '../../src/services/mcp-servers/write-mcp-server-access.ts';
import { createMcpServer, deleteMcpServer, updateMcpServer } from '../../src/services/mcp-servers/write-mcp-servers.ts';
import { builder } from '../builder.ts';
import { plain } from '../input.ts';
import { CapabilitiesInput, McpCapabilityPageRef, McpChangedRef, McpCreatedRef, McpIntegrationMetadataRef, McpSuccessRef } from './mcp-integration.ts';

// MCP servers (control-plane-schemas 2.18): workspace instances of MCP integrations, with their
// capabilities, per-user access and users' connections. The MCP gateway itself comes later.

const DetailsRef = builder.objectRef<McpIntegrationDetailsView>('McpIntegrationDetails').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    slug: t.exposeString('slug'),
    status: t.exposeString('status'),
    configurations: t.expose('configurations', { type: 'JSON', nullable: true, description: 'Secret values masked' }),
    url: t.exposeString('url'),
    transport: t.exposeString('transport'),
    auth_type: t.exposeString('auth_type'),
  }),
});

const McpServerRef = builder.objectRef<McpServerView>('McpServer').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    slug: t.exposeString('slug'),
    name: t.exposeString('name'),
    status: t.exposeString('status'),
    description: t.exposeString('description', { nullable: true }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    last_updated_at: t.expose('last_updated_at', { type: 'DateTime' }),
    mcp_integration_id: t.exposeString('mcp_integration_id'),
    mcp_integration_details: t.field({ type: DetailsRef, nullable: true, description: 'Service keys only', resolve: (s) => s.mcp_integration_details }),
    workspace_id: t.exposeString('workspace_id'),
    organisation_id: t.exposeString('organisation_id', { nullable: true, description: 'List items only (so are the fields below)' }),
    owner_id: t.exposeString('owner_id', { nullable: true }),
    mcp_integration_slug: t.exposeString('mcp_integration_slug', { nullable: true }),
    mcp_integration_url: t.exposeString('mcp_integration_url', { nullable: true }),
    auth_type: t.exposeString('auth_type', { nullable: true }),
    workspace_name: t.exposeString('workspace_name', { nullable: true }),
    workspace_slug: t.exposeString('workspace_slug', { nullable: true }),
    url: t.exposeString('url', { nullable: true, description: 'The gateway URL of this server, {gateway_base}/{slug}/mcp' }),
  }),
});

const McpServerPageRef = builder.objectRef<{ data: McpServerView[]; total: number }>('McpServerPage').implement({
  fields: (t) => ({ data: t.field({ type: [McpServerRef], resolve: (p) => p.data }), total: t.exposeInt('total') }),
});

const TestResultRef = builder.objectRef<McpTestResult>('McpServerTestResult').implement({
  fields: (t) => ({
    success: t.exposeBoolean('success'),
    status_code: t.exposeInt('status_code', { nullable: true }),
    response_time_ms: t.exposeInt('response_time_ms', { nullable: true }),
    url: t.exposeString('url'),
    server_name: t.exposeString('server_name', { nullable: true }),
    error: t.exposeString('error', { nullable: true }),
  }),
});

const UserAccessRef = builder.objectRef<McpUserAccessView>('McpUserAccess').implement({
  fields: (t) => ({
    user_id: t.exposeString('user_id'),
    first_name: t.exposeString('first_name', { nullable: true }),
    last_name: t.exposeString('last_name', { nullable: true }),
    enabled: t.exposeBoolean('enabled'),
    has_override: t.exposeBoolean('has_override'),
    connection_status: t.exposeString('connection_status', { description: 'connected | not_connected' }),
  }),
});

const UserAccessPageRef = builder.objectRef<McpUserAccessPage>('McpUserAccessPage').implement({
  fields: (t) => ({
    data: t.field({ type: [UserAccessRef], resolve: (p) => p.data }),
    default_user_access: t.exposeString('default_user_access', { description: 'allow | deny' }),
    total: t.exposeInt('total'),
    has_more: t.exposeBoolean('has_more'),
  }),
});

const ConnectionRef = builder.objectRef<McpConnectionView>('McpConnection').implement({
  fields: (t) => ({
    user_id: t.exposeString('user_id'),
    connected: t.exposeBoolean('connected'),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    last_updated_at: t.expose('last_updated_at', { type: 'DateTime' }),
  }),
});

const ConnectionPageRef = builder.objectRef<{ data: McpConnectionView[]; total: number; has_more: boolean }>('McpConnectionPage').implement({
  fields: (t) => ({ data: t.field({ type: [ConnectionRef], resolve: (p) => p.data }), total: t.exposeInt('total'), has_more: t.exposeBoolean('has_more') }),
});

const CreateInput = builder.inputType('CreateMcpServerInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    mcp_integration_id: t.string({ required: true, description: 'Integration id or slug' }),
    workspace_id: t.string({ description: 'Id or slug; required for organisation API keys' }),
    description: t.string(),
    slug: t.string(),
  }),
});

const UpdateInput = builder.inputType('UpdateMcpServerInput', { fields: (t) => ({ name: t.string(), description: t.string() }) });

const UserToggle = builder.inputType('McpUserAccessToggleInput', {
  fields: (t) => ({ user_id: t.string({ required: true }), enabled: t.boolean({ required: true }) }),
});

const UserAccessInput = builder.inputType('UpdateMcpServerUserAccessInput', {
  fields: (t) => ({ user_access: t.field({ type: [UserToggle] }), default_user_access: t.string({ description: 'allow | deny' }) }),
});

builder.queryFields((t) => ({
  mcpServers: t.field({
    type: McpServerPageRef,
    args: { workspace_id: t.arg.string(), id: t.arg.string({ description: 'Comma-separated ids' }), search: t.arg.string(), current_page: t.arg.int(), page_size: t.arg.int() },
    resolve: (_, a, ctx) =>
      listMcpServers(ctx.em, ctx.actor, ctx.gatewayUrls, {
        workspaceId: a.workspace_id,
        ids: a.id ? a.id.split(',').map((s) => s.trim()).filter(Boolean) : null,
        search: a.search,
        currentPage: a.current_page,
        pageSize: a.page_size,
      }),
  }),
  mcpServer: t.field({
    type: McpServerRef,
    args: { id: t.arg.id({ required: true, description: 'Id or slug' }) },
    resolve: (_, a, ctx) => getMcpServer(ctx.em, ctx.actor, String(a.id)),
  }),
  mcpServerMetadata: t.field({
    type: McpIntegrationMetadataRef,
    description: 'Its integration\'s server info and sync status',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => getMcpServerMetadata(ctx.em, ctx.actor, String(a.id)),
  }),
  mcpServerCapabilities: t.field({
    type: McpCapabilityPageRef,
    args: { id: t.arg.id({ required: true }), type: t.arg.string(), page: t.arg.int({ description: '1-based' }), page_size: t.arg.int() },
    resolve: (_, a, ctx) => listMcpServerCapabilities(ctx.em, ctx.actor, String(a.id), { type: a.type, page: a.page, pageSize: a.page_size }),
  }),
  mcpServerUserAccess: t.field({
    type: UserAccessPageRef,
    args: { id: t.arg.id({ required: true }), page: t.arg.int({ description: '1-based' }), page_size: t.arg.int() },
    resolve: (_, a, ctx) => listMcpServerUserAccess(ctx.em, ctx.actor, String(a.id), { page: a.page, pageSize: a.page_size }),
  }),
  mcpServerConnections: t.field({
    type: ConnectionPageRef,
    args: { id: t.arg.id({ required: true }), user_id: t.arg.string(), workspace_id: t.arg.string(), current_page: t.arg.int(), page_size: t.arg.int() },
    resolve: (_, a, ctx) =>
      listMcpServerConnections(ctx.em, ctx.actor, String(a.id), { userId: a.user_id, workspaceId: a.workspace_id, currentPage: a.current_page, pageSize: a.page_size }),
  }),
}));

builder.mutationFields((t) => ({
  createMcpServer: t.field({
    type: McpCreatedRef,
    errors: { directResult: true },
    args: { input: t.arg({ type: CreateInput, required: true }) },
    resolve: (_, a, ctx) => createMcpServer(ctx.em, ctx.actor, ctx.meta, plain(a.input)),
  }),
  updateMcpServer: t.field({
    type: McpChangedRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateInput, required: true }) },
    resolve: (_, a, ctx) => updateMcpServer(ctx.em, ctx.actor, ctx.meta, String(a.id), plain(a.input)),
  }),
  deleteMcpServer: t.field({
    type: McpChangedRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => deleteMcpServer(ctx.em, ctx.actor, ctx.meta, String(a.id)),
  }),
  testMcpServer: t.field({
    type: TestResultRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => testMcpServer(ctx.em, ctx.secretBox, ctx.actor, String(a.id), ctx.trustedHosts),
  }),
  testMcpIntegration: t.field({
    type: TestResultRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => testMcpIntegration(ctx.em, ctx.secretBox, ctx.actor, String(a.id), ctx.trustedHosts),
  }),
  updateMcpServerCapabilities: t.field({
    type: McpSuccessRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: CapabilitiesInput, required: true }) },
    resolve: (_, a, ctx) => updateMcpServerCapabilities(ctx.em, ctx.actor, ctx.meta, String(a.id), plain(a.input)),
  }),
  updateMcpServerUserAccess: t.field({
    type: McpSuccessRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UserAccessInput, required: true }) },
    resolve: (_, a, ctx) => updateMcpServerUserAccess(ctx.em, ctx.actor, ctx.meta, String(a.id), plain(a.input)),
  }),
  deleteMcpServerConnection: t.field({
    type: McpSuccessRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), user_id: t.arg.string(), workspace_id: t.arg.string() },
    resolve: (_, a, ctx) => deleteMcpServerConnection(ctx.em, ctx.actor, ctx.meta, String(a.id), { userId: a.user_id, workspaceId: a.workspace_id }),
  }),
}));
