import type { RestRoute } from './types.ts';

// Filled by the users and invites work (issue 3): /v1/admin/users and /v1/admin/users/invites.
export const userRoutes: RestRoute[] = [];
