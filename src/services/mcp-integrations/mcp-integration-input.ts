import { z } from 'zod';

// Request bodies of /mcp-integrations (control-plane-schemas 2.18, 1.5 SecretMapping).

const SLUG = /^[a-zA-Z0-9_-]+$/;
const httpUrl = z.string().max(2048).refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), 'must be an http or https URL');

export const AUTH_TYPES = ['oauth_auto', 'headers', 'none'] as const;
export const TRANSPORTS = ['http', 'sse'] as const;

const secretMapping = z.strictObject({
  target_field: z.string().regex(/^configurations\.[A-Za-z0-9_.-]+$/, 'must be configurations.<field>'),
  secret_reference_id: z.string().min(1).max(255),
  secret_key: z.string().max(255).nullable().optional(),
  value_format: z.enum(['json', 'string']).nullable().optional(),
});

const secretMappings = z.array(secretMapping).superRefine((list, ctx) => {
  const seen = new Set<string>();
  list.forEach((m, i) => {
    if (seen.has(m.target_field)) ctx.addIssue({ code: 'custom', path: [i, 'target_field'], message: 'must be unique within secret_mappings' });
    seen.add(m.target_field);
  });
});

/** Free-form; known keys `custom_headers` and `passthrough_header` are maps of strings. */
const configurations = z.looseObject({
  custom_headers: z.record(z.string(), z.string()).optional(),
  passthrough_header: z.record(z.string(), z.string()).optional(),
});

export const createMcpIntegrationSchema = z.strictObject({
  name: z.string().trim().min(1).max(255),
  url: httpUrl,
  auth_type: z.enum(AUTH_TYPES),
  transport: z.enum(TRANSPORTS),
  organisation_id: z.string().uuid().optional(),
  workspace_id: z.string().min(1).optional(),
  slug: z.string().min(1).max(255).regex(SLUG, 'must match ^[a-zA-Z0-9_-]+$').optional(),
  description: z.string().max(5000).nullable().optional(),
  configurations: configurations.nullable().optional(),
  secret_mappings: secretMappings.optional(),
});
export type CreateMcpIntegrationInput = z.output<typeof createMcpIntegrationSchema>;

export const updateMcpIntegrationSchema = z.strictObject({
  name: z.string().trim().min(1).max(255).optional(),
  description: z.string().max(5000).nullable().optional(),
  configurations: configurations.nullable().optional(),
  url: httpUrl.optional(),
  auth_type: z.enum(AUTH_TYPES).optional(),
  transport: z.enum(TRANSPORTS).optional(),
  secret_mappings: secretMappings.optional(),
});
export type UpdateMcpIntegrationInput = z.output<typeof updateMcpIntegrationSchema>;

export const updateMcpIntegrationWorkspacesSchema = z.strictObject({
  workspaces: z.array(z.strictObject({ id: z.string().min(1), enabled: z.boolean() })),
  global_workspace_access: z.strictObject({ enabled: z.boolean() }).nullable().optional(),
  override_existing_workspace_access: z.boolean().default(false),
});

export const CAPABILITY_TYPES = ['tool', 'prompt', 'resource', 'resource_template'] as const;

/** Bulk enable/disable (integration and server level): `{name, type, enabled}`, at least one. */
export const updateCapabilitiesSchema = z.strictObject({
  capabilities: z.array(z.strictObject({ name: z.string().min(1).max(255), type: z.enum(['tool', 'prompt', 'resource']), enabled: z.boolean() })).min(1),
});

const discovered = z.looseObject({
  name: z.string().min(1).max(255),
  title: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
});

/**
 * POST /mcp-integrations/{id}/sync (api-catalogue Appendix A, "Push discovered server info/capabilities"):
 * what a gateway found on the upstream server. Lists given replace that type's capabilities
 * (keeping enable flags of names that stay); a `sync_error` records a failed sync.
 */
export const syncMcpIntegrationSchema = z.strictObject({
  server_name: z.string().max(255).nullable().optional(),
  server_version: z.string().max(255).nullable().optional(),
  protocol_version: z.string().max(64).nullable().optional(),
  capability_flags: z.record(z.string(), z.unknown()).nullable().optional(),
  sync_error: z.string().max(5000).nullable().optional(),
  tools: z.array(discovered).optional(),
  prompts: z.array(discovered).optional(),
  resources: z.array(discovered).optional(),
  resource_templates: z.array(discovered).optional(),
});
export type SyncMcpIntegrationInput = z.output<typeof syncMcpIntegrationSchema>;
