import type { RestRoute } from './types.ts';

// Filled by the workspaces work (issue 3): /v1/admin/workspaces and /v2/workspaces/{id}.
export const workspaceRoutes: RestRoute[] = [];
