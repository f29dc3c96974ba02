import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../domain/errors.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import { DeploymentSchema } from '../../persistence/entities/index.ts';
import type { Actor } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { pageWindow } from '../paging.ts';
import { findWorkspace } from '../workspaces/find-workspace.ts';
import { outboundRefusal } from './outbound-check.ts';
import { toDeploymentView, type DeploymentPage, type DeploymentView } from './deployment-view.ts';
import { deploymentSecretContext, findDeployment } from './find-deployment.ts';

export interface DeploymentListArgs {
  organisationId?: string | null;
  status?: string | null;
  type?: string | null;
  workspaceSlug?: string | null;
  search?: string | null;
  currentPage?: number | null;
  pageSize?: number | null;
}

/**
 * GET /deployments: filters `status`, `type`, `workspace_slug` (deployments that let that
 * workspace in: listed, or all workspaces allowed) and `search`; items and envelope carry the
 * gateway base URLs (gateway-spec, "Policies, guardrails, configs, deployments").
 */
export async function listDeployments(em: EntityManager, actor: Actor, gatewayUrls: readonly string[], args: DeploymentListArgs = {}): Promise<DeploymentPage> {
  authorize(actor, 'deployments.list');
  const { limit, offset } = pageWindow({ currentPage: args.currentPage, pageSize: args.pageSize }, { defaultSize: 100, maxSize: 1000 });
  if (args.organisationId && args.organisationId !== actor.organisationId) throw notFound('Organisation', 'organisation_id');
  const where: Record<string, unknown>[] = [{ organisationId: actor.organisationId }];
  if (args.status) where.push({ status: args.status });
  if (args.type) where.push({ type: args.type });
  if (args.search) {
    const like = `%${args.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    where.push({ $or: [{ name: { $ilike: like } }, { slug: { $ilike: like } }] });
  }
  if (args.workspaceSlug) {
    const ws = await findWorkspace(em, actor.organisationId, args.workspaceSlug);
    if (!ws) throw notFound('Workspace', 'workspace_slug');
    const ids = await em.getConnection().execute<{ id: string }[]>(
      `select id from deployment where organisation_id = ? and (coalesce((auth_settings->>'allow_all_workspaces')::boolean, false) or coalesce(auth_settings->'workspaces_allowed', '[]'::jsonb) @> to_jsonb(array[?::text]))`,
      [actor.organisationId, ws.id],
    );
    where.push({ id: { $in: ids.map((r) => r.id) } });
  }
  const [rows, total] = await em.findAndCount(DeploymentSchema, { $and: where }, { orderBy: { createdAt: 'asc', id: 'asc' }, limit, offset });
  return { object: 'list', total, data: rows.map((d) => toDeploymentView(d, gatewayUrls, null)), gateway_base_urls: [...gatewayUrls] };
}

/** GET /deployments/{id}: `include_credentials` shows the password, for callers who may change the deployment. */
export async function getDeployment(em: EntityManager, box: SecretBox, actor: Actor, gatewayUrls: readonly string[], idOrSlug: string, opts: { includeCredentials?: boolean | null; organisationId?: string | null } = {}): Promise<DeploymentView> {
  authorize(actor, 'deployments.read');
  if (opts.includeCredentials) authorize(actor, 'deployments.update');
  if (opts.organisationId && opts.organisationId !== actor.organisationId) throw notFound('Organisation', 'organisation_id');
  const d = await findDeployment(em, actor, idOrSlug);
  const password = opts.includeCredentials && d.credentialsPasswordSealed ? box.open(d.credentialsPasswordSealed, deploymentSecretContext(d.id)) : null;
  return toDeploymentView(d, gatewayUrls, password);
}

export interface DeploymentPing {
  success: boolean;
  url: string | null;
  status_code: number | null;
  response_time_ms: number | null;
  /** The worker's own `/health` status, when it answered with one. */
  gateway_status: string | null;
  error: string | null;
}

const PING_TIMEOUT_MS = 5_000;

/** GET /deployments/{id}/ping: the deployment's gateway `/health`, reached from the control plane. */
export async function pingDeployment(em: EntityManager, actor: Actor, gatewayUrls: readonly string[], idOrSlug: string, trustedHosts: readonly string[]): Promise<DeploymentPing> {
  authorize(actor, 'deployments.read');
  const view = toDeploymentView(await findDeployment(em, actor, idOrSlug), gatewayUrls, null);
  if (!view.gateway_base_url) return { success: false, url: null, status_code: null, response_time_ms: null, gateway_status: null, error: 'The deployment has no gateway_base_url and GATEWAY_PUBLIC_URLS is not set' };
  const url = `${view.gateway_base_url}/health`;
  const refused = outboundRefusal(url, trustedHosts);
  if (refused) return { success: false, url, status_code: null, response_time_ms: null, gateway_status: null, error: refused };
  const started = performance.now();
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(PING_TIMEOUT_MS), redirect: 'manual' });
    const response_time_ms = Math.round(performance.now() - started);
    let gateway_status: string | null = null;
    try {
      const body = (await res.json()) as { status?: unknown };
      if (typeof body.status === 'string') gateway_status = body.status;
    } catch {
      // not JSON
    }
    return { success: res.ok, url, status_code: res.status, response_time_ms, gateway_status, error: res.ok ? null : `The gateway answered ${res.status}` };
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError';
    return { success: false, url, status_code: null, response_time_ms: null, gateway_status: null, error: timedOut ? `No answer within ${PING_TIMEOUT_MS} ms` : `Could not reach the gateway: ${(err as Error).message}` };
  }
}
