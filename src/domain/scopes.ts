// Permission names (spec, Authentication 4, and the schema catalogue's examples).
// A key's scopes are checked against this catalogue and against its creator's own.

const crud = (resource: string, extra: string[] = []): string[] =>
  ['create', 'read', 'update', 'delete', 'list', ...extra].map((a) => `${resource}.${a}`);

/** Scopes only an organisation-level key may hold. */
export const ORGANISATION_SCOPES: readonly string[] = [
  ...crud('organisation_users'),
  ...crud('organisation_service_api_keys'),
  ...crud('organisation_user_api_keys'),
  ...crud('workspaces'),
  // "Manage users and permissions" is organisation-only (spec, Authentication 3).
  ...crud('workspace_users'),
  ...crud('invites'),
  'organisations.read',
  'organisation_settings.read',
  'organisation_settings.update',
  ...crud('organisation_guardrails'),
  'organisation_exclusions.list',
  'organisation_exclusions.update',
  ...crud('integrations'),
  // Secret references are organisation resources shared with workspaces (control-plane-schemas 2.17).
  ...crud('secret_references'),
  ...crud('audit_logs').filter((s) => s.endsWith('.list') || s.endsWith('.read')),
  // Gateway installations registered with the organisation (control-plane-schemas 2.19, draft).
  ...crud('deployments'),
];

/** Scopes that make sense within one workspace. */
export const WORKSPACE_SCOPES: readonly string[] = [
  ...crud('workspace_service_api_keys'),
  ...crud('workspace_user_api_keys'),
  'logs.export',
  'logs.list',
  'logs.view',
  ...crud('configs'),
  ...crud('virtual_keys', ['duplicate', 'copy']),
  ...crud('providers'),
  ...crud('guardrails'),
  ...crud('prompts'),
  ...crud('rate_limit_policies'),
  ...crud('usage_limit_policies'),
  // MCP registry (control-plane-schemas 2.18): integrations may be workspace-level, servers always are.
  ...crud('mcp_integrations'),
  ...crud('mcp_servers'),
  'analytics.view',
  'feedback.create',
  'feedback.update',
  // data plane
  'completions.write',
  'generations.create',
  'guardrails.invoke',
  'mcp.invoke',
  'agents.invoke',
];

export const ALL_SCOPES: readonly string[] = [...ORGANISATION_SCOPES, ...WORKSPACE_SCOPES];

/** Operations only a workspace key may do ("Create or update feedback": Admin key no, Workspace key yes). */
export const WORKSPACE_ONLY_SCOPES: readonly string[] = ['feedback.create', 'feedback.update'];

/** What an organisation-level key may hold: everything but the workspace-only operations. */
export const ORGANISATION_KEY_SCOPES: readonly string[] = ALL_SCOPES.filter((s) => !WORKSPACE_ONLY_SCOPES.includes(s));
const KNOWN = new Set(ALL_SCOPES);
const WORKSPACE_SET = new Set(WORKSPACE_SCOPES);

export const isKnownScope = (scope: string): boolean => KNOWN.has(scope);
export const isWorkspaceScope = (scope: string): boolean => WORKSPACE_SET.has(scope);

/** Data-plane permission needed to call model endpoints. */
export const DATA_PLANE_SCOPE = 'completions.write';

export function hasScope(scopes: readonly string[], scope: string): boolean {
  return scopes.includes(scope);
}

/** Scopes in `requested` that `held` does not cover. */
export function scopesBeyond(requested: readonly string[], held: readonly string[]): string[] {
  const h = new Set(held);
  return requested.filter((s) => !h.has(s));
}
