import type { CapabilityCount, CapabilityCounts, CapabilityPage, McpCapabilityView } from '../../src/services/mcp-integrations/capability-view.ts';
import type { McpIntegrationMetadataView, McpIntegrationView } from '../../src/services/mcp-integrations/mcp-integration-view.ts';
import {
  getMcpIntegration,
  getMcpIntegrationMetadata,
  listMcpIntegrationCapabilities,
  listMcpIntegrations,
  listMcpIntegrationWorkspaces,
  type McpIntegrationPage,
  type McpIntegrationWorkspaces,
  type McpIntegrationWorkspaceView,
} from '../../src/services/mcp-integrations/read-mcp-integrations.ts';
import { syncMcpIntegration, updateMcpIntegrationCapabilities, updateMcpIntegrationWorkspaces } from '../../src/services/mcp-integrations/write-mcp-integration-access.ts';
import { createMcpIntegration, deleteMcpIntegration, updateMcpIntegration } from '../../src/services/mcp-integrations/write-mcp-integrations.ts';
import { builder } from '../builder.ts';
import { plain } from '../input.ts';

// MCP integrations (control-plane-schemas 2.18): upstream MCP servers registered for the
// organisation or a workspace, their workspace access, discovered capabilities and metadata.

const McpIntegrationRef = builder.objectRef<McpIntegrationView>('McpIntegration').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    owner_id: t.exposeString('owner_id', { nullable: true }),
    status: t.exposeString('status'),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    last_updated_at: t.expose('last_updated_at', { type: 'DateTime' }),
    configurations: t.expose('configurations', { type: 'JSON', nullable: true, description: 'Secret values masked' }),
    global_workspace_access: t.expose('global_workspace_access', { type: 'JSON', nullable: true }),
    organisation_id: t.exposeString('organisation_id'),
    workspace_id: t.exposeString('workspace_id', { nullable: true }),
    slug: t.exposeString('slug'),
    url: t.exposeString('url'),
    auth_type: t.exposeString('auth_type'),
    transport: t.exposeString('transport'),
    type: t.exposeString('type', { description: 'workspace | organisation' }),
    secret_mappings: t.expose('secret_mappings', { type: 'JSON' }),
    workspaces_count: t.exposeInt('workspaces_count', { nullable: true, description: 'List items only' }),
  }),
});

const McpIntegrationPageRef = builder.objectRef<McpIntegrationPage>('McpIntegrationPage').implement({
  fields: (t) => ({
    data: t.field({ type: [McpIntegrationRef], resolve: (p) => p.data }),
    total: t.exposeInt('total'),
    has_more: t.exposeBoolean('has_more'),
  }),
});

export const McpIntegrationMetadataRef = builder.objectRef<McpIntegrationMetadataView>('McpIntegrationMetadata').implement({
  fields: (t) => ({
    server_name: t.exposeString('server_name', { nullable: true }),
    server_version: t.exposeString('server_version', { nullable: true }),
    protocol_version: t.exposeString('protocol_version', { nullable: true }),
    capability_flags: t.expose('capability_flags', { type: 'JSON', nullable: true }),
    sync_status: t.exposeString('sync_status', { nullable: true }),
    last_synced_at: t.expose('last_synced_at', { type: 'DateTime', nullable: true }),
    sync_error: t.exposeString('sync_error', { nullable: true }),
  }),
});

const WorkspaceAccessRef = builder.objectRef<McpIntegrationWorkspaceView>('McpIntegrationWorkspace').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    enabled: t.exposeBoolean('enabled'),
    status: t.exposeString('status'),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    last_updated_at: t.expose('last_updated_at', { type: 'DateTime' }),
  }),
});

const WorkspacesRef = builder.objectRef<McpIntegrationWorkspaces>('McpIntegrationWorkspaces').implement({
  fields: (t) => ({
    data: t.field({ type: [WorkspaceAccessRef], resolve: (p) => p.data }),
    global_workspace_access: t.expose('global_workspace_access', { type: 'JSON', nullable: true }),
    total: t.exposeInt('total'),
  }),
});

export const McpCapabilityRef = builder.objectRef<McpCapabilityView>('McpCapability').implement({
  fields: (t) => ({
    name: t.exposeString('name'),
    type: t.exposeString('type', { description: 'tool | prompt | resource | resource_template' }),
    title: t.exposeString('title', { nullable: true }),
    description: t.exposeString('description', { nullable: true }),
    icons: t.expose('icons', { type: 'JSON', nullable: true }),
    enabled: t.exposeBoolean('enabled'),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    last_updated_at: t.expose('last_updated_at', { type: 'DateTime' }),
    input_schema: t.expose('input_schema', { type: 'JSON', nullable: true }),
    output_schema: t.expose('output_schema', { type: 'JSON', nullable: true }),
    execution: t.expose('execution', { type: 'JSON', nullable: true }),
    annotations: t.expose('annotations', { type: 'JSON', nullable: true }),
    arguments: t.expose('arguments', { type: 'JSON', nullable: true }),
    uri: t.exposeString('uri', { nullable: true }),
    uri_template: t.exposeString('uri_template', { nullable: true }),
    mime_type: t.exposeString('mime_type', { nullable: true }),
    size: t.exposeInt('size', { nullable: true }),
    integration_enabled: t.exposeBoolean('integration_enabled', { nullable: true, description: 'Server lists only' }),
  }),
});

const CountRef = builder.objectRef<CapabilityCount>('McpCapabilityCount').implement({
  fields: (t) => ({ total: t.exposeInt('total'), enabled: t.exposeInt('enabled') }),
});

const CountsRef = builder.objectRef<CapabilityCounts>('McpCapabilityCounts').implement({
  fields: (t) => ({
    tools: t.field({ type: CountRef, resolve: (c) => c.tools }),
    prompts: t.field({ type: CountRef, resolve: (c) => c.prompts }),
    resources: t.field({ type: CountRef, resolve: (c) => c.resources }),
    resource_templates: t.field({ type: CountRef, resolve: (c) => c.resource_templates }),
  }),
});

export const McpCapabilityPageRef = builder.objectRef<CapabilityPage>('McpCapabilityPage').implement({
  fields: (t) => ({
    data: t.field({ type: [McpCapabilityRef], resolve: (p) => p.data }),
    counts: t.field({ type: CountsRef, resolve: (p) => p.counts }),
    total: t.exposeInt('total'),
    has_more: t.exposeBoolean('has_more'),
  }),
});

export const McpSuccessRef = builder.objectRef<{ success: boolean }>('McpSuccess').implement({ fields: (t) => ({ success: t.exposeBoolean('success') }) });

const SyncResultRef = builder.objectRef<{ success: boolean; counts: CapabilityCounts }>('McpSyncResult').implement({
  fields: (t) => ({ success: t.exposeBoolean('success'), counts: t.field({ type: CountsRef, resolve: (r) => r.counts }) }),
});

export const McpCreatedRef = builder.objectRef<{ id: string; slug: string }>('McpCreated').implement({
  fields: (t) => ({ id: t.exposeID('id'), slug: t.exposeString('slug') }),
});

export const McpChangedRef = builder.objectRef<{ id: string }>('McpChanged').implement({ fields: (t) => ({ id: t.exposeID('id') }) });

const CreateInput = builder.inputType('CreateMcpIntegrationInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    url: t.string({ required: true }),
    auth_type: t.string({ required: true, description: 'oauth_auto | headers | none' }),
    transport: t.string({ required: true, description: 'http | sse' }),
    organisation_id: t.string(),
    workspace_id: t.string({ description: 'Id or slug: a workspace-level integration' }),
    slug: t.string(),
    description: t.string(),
    configurations: t.field({ type: 'JSON', description: 'custom_headers, passthrough_header, …' }),
    secret_mappings: t.field({ type: 'JSON' }),
  }),
});

const UpdateInput = builder.inputType('UpdateMcpIntegrationInput', {
  fields: (t) => ({
    name: t.string(),
    description: t.string(),
    configurations: t.field({ type: 'JSON', description: 'Secrets sent back masked keep their stored value' }),
    url: t.string(),
    auth_type: t.string(),
    transport: t.string(),
    secret_mappings: t.field({ type: 'JSON' }),
  }),
});

const WorkspaceToggle = builder.inputType('McpWorkspaceAccessInput', {
  fields: (t) => ({ id: t.string({ required: true, description: 'Id or slug' }), enabled: t.boolean({ required: true }) }),
});

const GlobalAccessInput = builder.inputType('McpGlobalWorkspaceAccessInput', { fields: (t) => ({ enabled: t.boolean({ required: true }) }) });

const WorkspacesInput = builder.inputType('UpdateMcpIntegrationWorkspacesInput', {
  fields: (t) => ({
    workspaces: t.field({ type: [WorkspaceToggle], required: true }),
    global_workspace_access: t.field({ type: GlobalAccessInput }),
    override_existing_workspace_access: t.boolean(),
  }),
});

const CapabilityToggle = builder.inputType('McpCapabilityToggleInput', {
  fields: (t) => ({ name: t.string({ required: true }), type: t.string({ required: true, description: 'tool | prompt | resource' }), enabled: t.boolean({ required: true }) }),
});

export const CapabilitiesInput = builder.inputType('UpdateMcpCapabilitiesInput', {
  fields: (t) => ({ capabilities: t.field({ type: [CapabilityToggle], required: true }) }),
});

const SyncInput = builder.inputType('SyncMcpIntegrationInput', {
  fields: (t) => ({
    server_name: t.string(),
    server_version: t.string(),
    protocol_version: t.string(),
    capability_flags: t.field({ type: 'JSON' }),
    sync_error: t.string(),
    tools: t.field({ type: 'JSON', description: 'Discovered tools: [{name, title, description, input_schema, …}]' }),
    prompts: t.field({ type: 'JSON' }),
    resources: t.field({ type: 'JSON' }),
    resource_templates: t.field({ type: 'JSON' }),
  }),
});

builder.queryFields((t) => ({
  mcpIntegrations: t.field({
    type: McpIntegrationPageRef,
    args: {
      organisation_id: t.arg.string(),
      workspace_id: t.arg.string(),
      type: t.arg.string({ description: 'workspace | organisation | all' }),
      search: t.arg.string(),
      current_page: t.arg.int(),
      page_size: t.arg.int(),
    },
    resolve: (_, a, ctx) =>
      listMcpIntegrations(ctx.em, ctx.actor, { organisationId: a.organisation_id, workspaceId: a.workspace_id, type: a.type, search: a.search, currentPage: a.current_page, pageSize: a.page_size }),
  }),
  mcpIntegration: t.field({
    type: McpIntegrationRef,
    args: { id: t.arg.id({ required: true, description: 'Id or slug' }) },
    resolve: (_, a, ctx) => getMcpIntegration(ctx.em, ctx.actor, String(a.id)),
  }),
  mcpIntegrationMetadata: t.field({
    type: McpIntegrationMetadataRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => getMcpIntegrationMetadata(ctx.em, ctx.actor, String(a.id)),
  }),
  mcpIntegrationWorkspaces: t.field({
    type: WorkspacesRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => listMcpIntegrationWorkspaces(ctx.em, ctx.actor, String(a.id)),
  }),
  mcpIntegrationCapabilities: t.field({
    type: McpCapabilityPageRef,
    args: { id: t.arg.id({ required: true }), type: t.arg.string(), page: t.arg.int({ description: '1-based' }), page_size: t.arg.int() },
    resolve: (_, a, ctx) => listMcpIntegrationCapabilities(ctx.em, ctx.actor, String(a.id), { type: a.type, page: a.page, pageSize: a.page_size }),
  }),
}));

builder.mutationFields((t) => ({
  createMcpIntegration: t.field({
    type: McpCreatedRef,
    errors: { directResult: true },
    args: { input: t.arg({ type: CreateInput, required: true }) },
    resolve: (_, a, ctx) => createMcpIntegration(ctx.em, ctx.secretBox, ctx.actor, ctx.meta, plain(a.input)),
  }),
  updateMcpIntegration: t.field({
    type: McpChangedRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateInput, required: true }) },
    resolve: (_, a, ctx) => updateMcpIntegration(ctx.em, ctx.secretBox, ctx.actor, ctx.meta, String(a.id), plain(a.input)),
  }),
  deleteMcpIntegration: t.field({
    type: McpChangedRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => deleteMcpIntegration(ctx.em, ctx.actor, ctx.meta, String(a.id)),
  }),
  updateMcpIntegrationWorkspaces: t.field({
    type: McpSuccessRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: WorkspacesInput, required: true }) },
    resolve: (_, a, ctx) => updateMcpIntegrationWorkspaces(ctx.em, ctx.actor, ctx.meta, String(a.id), plain(a.input)),
  }),
  updateMcpIntegrationCapabilities: t.field({
    type: McpSuccessRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: CapabilitiesInput, required: true }) },
    resolve: (_, a, ctx) => updateMcpIntegrationCapabilities(ctx.em, ctx.actor, ctx.meta, String(a.id), plain(a.input)),
  }),
  syncMcpIntegration: t.field({
    type: SyncResultRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: SyncInput, required: true }) },
    resolve: (_, a, ctx) => syncMcpIntegration(ctx.em, ctx.actor, ctx.meta, String(a.id), plain(a.input)),
  }),
}));
