import { Migration0001Foundation } from './0001-foundation.ts';
import { Migration0002Tenancy } from './0002-tenancy.ts';
import { Migration0003KeyRotation } from './0003-key-rotation.ts';
import { Migration0004ResourceChanges } from './0004-resource-changes.ts';
import { Migration0005RoleChanges } from './0005-role-changes.ts';
import { Migration0006Configs } from './0006-configs.ts';
import { Migration0011RequestLogs } from './0011-request-logs.ts';

// Listed explicitly (not globbed) so tsx, vitest and Deno all load the same set.
export const MIGRATIONS = [
  { name: '0001-foundation', class: Migration0001Foundation },
  { name: '0002-tenancy', class: Migration0002Tenancy },
  { name: '0003-key-rotation', class: Migration0003KeyRotation },
  { name: '0004-resource-changes', class: Migration0004ResourceChanges },
  { name: '0005-role-changes', class: Migration0005RoleChanges },
  { name: '0006-configs', class: Migration0006Configs },
  { name: '0011-request-logs', class: Migration0011RequestLogs },
];
