// Roles (spec, Authentication 3): what each role may do, as a ceiling on the scopes of the
// keys a user holds or creates. A user key acts with key scopes ∩ its user's role ceiling.
import { ALL_SCOPES, WORKSPACE_SCOPES } from './scopes.ts';

export const ORGANISATION_ROLES = ['owner', 'admin', 'member'] as const;
export type OrganisationRole = (typeof ORGANISATION_ROLES)[number];
export const WORKSPACE_ROLES = ['admin', 'manager', 'member'] as const;
export type WorkspaceRole = (typeof WORKSPACE_ROLES)[number];

/** "Workspace Member: limited": use the gateway and read what the workspace has. */
export const MEMBER_SCOPES: readonly string[] = [
  'completions.write', 'generations.create', 'guardrails.invoke', 'mcp.invoke', 'agents.invoke',
  'logs.list', 'logs.view', 'analytics.view', 'feedback.create', 'feedback.update',
  'configs.read', 'configs.list', 'providers.read', 'providers.list', 'virtual_keys.read', 'virtual_keys.list',
  'guardrails.read', 'guardrails.list', 'prompts.read', 'prompts.list',
];

const isOrgAdmin = (r: OrganisationRole | null): boolean => r === 'owner' || r === 'admin';

/**
 * Scopes a user may hold in a workspace (or organisation-wide when workspaceRole is null and
 * the user is an organisation owner or admin).
 */
export function roleCeiling(orgRole: OrganisationRole | null, workspaceRole: WorkspaceRole | null): readonly string[] {
  if (isOrgAdmin(orgRole)) return ALL_SCOPES; // "all organisation resources", any workspace
  if (workspaceRole === 'admin' || workspaceRole === 'manager') return WORKSPACE_SCOPES; // own workspace
  if (workspaceRole === 'member') return MEMBER_SCOPES;
  return [];
}

export function intersectScopes(a: readonly string[], b: readonly string[]): string[] {
  const set = new Set(b);
  return a.filter((s) => set.has(s));
}
