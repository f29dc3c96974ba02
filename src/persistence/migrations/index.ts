import { Migration0001Foundation } from './0001-foundation.ts';
import { Migration0002Tenancy } from './0002-tenancy.ts';
import { Migration0003KeyRotation } from './0003-key-rotation.ts';
import { Migration0004ResourceChanges } from './0004-resource-changes.ts';
import { Migration0005RoleChanges } from './0005-role-changes.ts';
import { Migration0006Configs } from './0006-configs.ts';
import { Migration0007Guardrails } from './0007-guardrails.ts';
import { Migration0008Integrations } from './0008-integrations.ts';
import { Migration0009Policies } from './0009-policies.ts';
import { Migration0010DeploymentsMcp } from './0010-deployments-mcp.ts';
import { Migration0011RequestLogs } from './0011-request-logs.ts';
import { Migration0012ResourceLookup } from './0012-resource-lookup.ts';
import { Migration0013RequestCost } from './0013-request-cost.ts';
import { Migration0014WorkspaceChanges } from './0014-workspace-changes.ts';

// Listed explicitly (not globbed) so tsx, vitest and Deno all load the same set.
export const MIGRATIONS = [
  { name: '0001-foundation', class: Migration0001Foundation },
  { name: '0002-tenancy', class: Migration0002Tenancy },
  { name: '0003-key-rotation', class: Migration0003KeyRotation },
  { name: '0004-resource-changes', class: Migration0004ResourceChanges },
  { name: '0005-role-changes', class: Migration0005RoleChanges },
  { name: '0006-configs', class: Migration0006Configs },
  { name: '0007-guardrails', class: Migration0007Guardrails },
  { name: '0008-integrations', class: Migration0008Integrations },
  { name: '0009-policies', class: Migration0009Policies },
  { name: '0010-deployments-mcp', class: Migration0010DeploymentsMcp },
  { name: '0011-request-logs', class: Migration0011RequestLogs },
  { name: '0012-resource-lookup', class: Migration0012ResourceLookup },
  { name: '0013-request-cost', class: Migration0013RequestCost },
  { name: '0014-workspace-changes', class: Migration0014WorkspaceChanges },
];
