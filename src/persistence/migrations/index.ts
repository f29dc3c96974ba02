import { Migration0001Foundation } from './0001-foundation.ts';
import { Migration0002Tenancy } from './0002-tenancy.ts';

// Listed explicitly (not globbed) so tsx, vitest and Deno all load the same set.
export const MIGRATIONS = [
  { name: '0001-foundation', class: Migration0001Foundation },
  { name: '0002-tenancy', class: Migration0002Tenancy },
];
