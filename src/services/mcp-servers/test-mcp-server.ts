import type { EntityManager } from '@mikro-orm/postgresql';
import type { SecretBox } from '../../platform/secret-box.ts';
import { McpIntegrationSchema } from '../../persistence/entities/index.ts';
import type { McpIntegration } from '../../persistence/entities/mcp-integration.ts';
import type { Actor } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { outboundRefusal } from '../deployments/outbound-check.ts';
import { findVisibleIntegration } from '../mcp-integrations/find-mcp-integration.ts';
import { toMetadataView, type McpIntegrationMetadataView } from '../mcp-integrations/mcp-integration-view.ts';
import { openConfigurations } from '../mcp-integrations/write-mcp-integrations.ts';
import { findVisibleServer } from './find-mcp-server.ts';

/** `POST /mcp-servers/{id}/test` (control-plane-schemas 2.18). */
export interface McpTestResult {
  success: boolean;
  status_code: number | null;
  response_time_ms: number | null;
  url: string;
  server_name: string | null;
  error: string | null;
}

const TIMEOUT_MS = 10_000;

/** The headers the upstream expects: the integration's custom headers (auth type `headers`). */
export function upstreamHeaders(box: SecretBox, i: McpIntegration): Record<string, string> {
  const conf = openConfigurations(box, i);
  const custom = conf?.custom_headers;
  return custom && typeof custom === 'object' ? Object.fromEntries(Object.entries(custom as Record<string, unknown>).filter(([, v]) => typeof v === 'string')) as Record<string, string> : {};
}

/** `result.serverInfo.name` from a JSON-RPC answer, plain JSON or one SSE `data:` event. */
function serverNameOf(contentType: string, text: string): string | null {
  const bodies = contentType.includes('text/event-stream')
    ? text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim())
    : [text];
  for (const b of bodies) {
    try {
      const name = (JSON.parse(b) as { result?: { serverInfo?: { name?: unknown } } }).result?.serverInfo?.name;
      if (typeof name === 'string') return name;
    } catch {
      // not JSON: no name
    }
  }
  return null;
}

/**
 * Tests an integration's upstream: an MCP `initialize` request over streamable HTTP (`http`), or
 * opening the event stream (`sse`); 2xx is success. Nothing is written; credentials never appear
 * in the answer.
 */
export async function testUpstream(box: SecretBox, i: McpIntegration, trustedHosts: readonly string[]): Promise<McpTestResult> {
  const refused = outboundRefusal(i.url, trustedHosts);
  if (refused) return { success: false, status_code: null, response_time_ms: null, url: i.url, server_name: null, error: refused };
  const headers = upstreamHeaders(box, i);
  const started = performance.now();
  const signal = AbortSignal.timeout(TIMEOUT_MS);
  try {
    const res =
      i.transport === 'sse'
        ? await fetch(i.url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream' }, signal, redirect: 'manual' })
        : await fetch(i.url, {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: 1,
              method: 'initialize',
              params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'gateway-control-plane', version: '1' } },
            }),
            signal,
            // A redirect is an answer, not a hop: it could lead past the address check.
            redirect: 'manual',
          });
    const response_time_ms = Math.round(performance.now() - started);
    let server_name: string | null = null;
    if (i.transport === 'sse') await res.body?.cancel();
    else server_name = serverNameOf(res.headers.get('content-type') ?? '', (await res.text()).slice(0, 1_048_576));
    return { success: res.ok, status_code: res.status, response_time_ms, url: i.url, server_name, error: res.ok ? null : `Upstream answered ${res.status}` };
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError';
    return { success: false, status_code: null, response_time_ms: null, url: i.url, server_name: null, error: timedOut ? `No answer within ${TIMEOUT_MS} ms` : `Could not reach the upstream: ${(err as Error).message}` };
  }
}

/** POST /mcp-servers/{id}/test: the server's integration upstream. */
export async function testMcpServer(em: EntityManager, box: SecretBox, actor: Actor, idOrSlug: string, trustedHosts: readonly string[]): Promise<McpTestResult> {
  authorize(actor, 'mcp_servers.read');
  const s = await findVisibleServer(em, actor, idOrSlug);
  return testUpstream(box, await em.findOneOrFail(McpIntegrationSchema, { id: s.integrationId }), trustedHosts);
}

/** POST /mcp-integrations/{id}/test (draft route). */
export async function testMcpIntegration(em: EntityManager, box: SecretBox, actor: Actor, idOrSlug: string, trustedHosts: readonly string[]): Promise<McpTestResult> {
  authorize(actor, 'mcp_integrations.read');
  return testUpstream(box, await findVisibleIntegration(em, actor, idOrSlug), trustedHosts);
}

/** GET /mcp-servers/{id}/metadata (draft route): its integration's server info and sync status. */
export async function getMcpServerMetadata(em: EntityManager, actor: Actor, idOrSlug: string): Promise<McpIntegrationMetadataView> {
  authorize(actor, 'mcp_servers.read');
  const s = await findVisibleServer(em, actor, idOrSlug);
  return toMetadataView(await em.findOneOrFail(McpIntegrationSchema, { id: s.integrationId }));
}
