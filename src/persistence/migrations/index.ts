import { Migration0001Foundation } from './0001-foundation.ts';
import { Migration0002Tenancy } from './0002-tenancy.ts';
import { Migration0003KeyRotation } from './0003-key-rotation.ts';

// Listed explicitly (not globbed) so tsx, vitest and Deno all load the same set.
export const MIGRATIONS = [
  { name: '0001-foundation', class: Migration0001Foundation },
  { name: '0002-tenancy', class: Migration0002Tenancy },
  { name: '0003-key-rotation', class: Migration0003KeyRotation },
];
