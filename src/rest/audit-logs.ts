import type { RestRoute } from './types.ts';

export const auditLogRoutes: RestRoute[] = [];
