import { AppError, errorResponse, toAppError } from '../domain/errors.ts';
import type { Logger } from '../domain/logger.ts';
import { analyticsRoutes } from './analytics.ts';
import { apiKeyRoutes } from './api-keys.ts';
import { auditLogRoutes } from './audit-logs.ts';
import { configRoutes } from './configs.ts';
import { integrationRoutes } from './integrations.ts';
import { providerRoutes } from './providers.ts';
import { virtualKeyRoutes } from './virtual-keys.ts';
import { policyRoutes } from './policies.ts';
import { modelPricingRoutes } from './model-pricing.ts';
import { secretReferenceRoutes } from './secret-references.ts';
import { guardrailRoutes } from './guardrails.ts';
import { guardrailSettingsRoutes } from './guardrail-settings.ts';
import { deploymentRoutes } from './deployments.ts';
import { mcpIntegrationRoutes } from './mcp-integrations.ts';
import { mcpServerRoutes } from './mcp-servers.ts';
import { feedbackRoutes } from './feedback.ts';
import { logExportRoutes } from './log-exports.ts';
import { logRoutes } from './logs.ts';
import { inviteAcceptRoutes, userRoutes } from './users.ts';
import { workspaceRoutes } from './workspaces.ts';
import type { OperationRunner, RestHandler, RestRoute } from './types.ts';

interface CompiledRoute {
  method: string;
  path: string;
  segments: string[];
  handler: RestHandler;
}

// One resource per line, so resources added in parallel merge cleanly.
const ROUTES: RestRoute[] = [
  ...analyticsRoutes,
  ...apiKeyRoutes,
  ...auditLogRoutes,
  ...configRoutes,
  ...integrationRoutes,
  ...providerRoutes,
  ...virtualKeyRoutes,
  ...policyRoutes,
  ...modelPricingRoutes,
  ...secretReferenceRoutes,
  ...guardrailRoutes,
  ...guardrailSettingsRoutes,
  ...deploymentRoutes,
  ...mcpIntegrationRoutes,
  ...mcpServerRoutes,
  ...feedbackRoutes,
  ...logExportRoutes,
  ...logRoutes,
  ...inviteAcceptRoutes,
  ...userRoutes,
  ...workspaceRoutes,
];

/** Literal segments win over parameters (`/users/invites` before `/users/:userId`). */
function compile(routes: RestRoute[]): CompiledRoute[] {
  const compiled = routes.map((r) => ({ method: r.method, path: r.path, segments: r.path.split('/').filter(Boolean), handler: r.handler }));
  const params = (r: CompiledRoute) => r.segments.filter((s) => s.startsWith(':')).length;
  return compiled.sort((a, b) => params(a) - params(b));
}

function match(route: CompiledRoute, parts: string[]): Record<string, string> | null {
  if (route.segments.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const seg = route.segments[i]!;
    if (seg.startsWith(':')) params[seg.slice(1)] = decodeURIComponent(parts[i]!);
    else if (seg !== parts[i]) return null;
  }
  return params;
}

/** The REST adapters: documented paths mapped to GraphQL operations (ARCHITECTURE.md). */
export function createRestRouter(run: OperationRunner, logger: Logger) {
  const compiled = compile(ROUTES);
  return {
    /** null when no REST route has this path (the caller answers 404). `matched.route` gets the route template (tracing). */
    async handle(request: Request, ip: string | null, matched?: { route?: string }): Promise<Response | null> {
      const url = new URL(request.url);
      const parts = url.pathname.split('/').filter(Boolean);
      let pathMatched = false;
      for (const route of compiled) {
        const params = match(route, parts);
        if (!params) continue;
        pathMatched = true;
        if (route.method !== request.method) continue;
        if (matched) matched.route = route.path;
        try {
          return await route.handler({ request, ip, params, query: url.searchParams, run });
        } catch (err) {
          if (!(err instanceof AppError)) logger.error('REST handler failed', { path: url.pathname, err: String(err) });
          return errorResponse(toAppError(err));
        }
      }
      if (pathMatched) return errorResponse(new AppError(405, 'invalid_request_error', 'method_not_allowed', `${request.method} is not allowed on ${url.pathname}`));
      return null;
    },
  };
}
