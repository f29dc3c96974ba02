// An in-process worker for data-plane tests: the real handler, the real undici upstream and the
// Node adapter, with an in-memory key link, provider directory and model catalogue (the parts
// the lead wires to gRPC), and the usage records captured.
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ResolvedKey } from '../../src/domain/api-key.ts';
import { createLogger } from '../../src/domain/logger.ts';
import { trustedHostSet } from '../../src/domain/net/custom-host.ts';
import type { UsageRecord } from '../../src/domain/usage-record.ts';
import { sendWebResponse, toWebRequest } from '../../src/platform/node-http.ts';
import { ControlPlaneUnavailable, type CatalogueModel, type ModelCatalogue } from '../../workers/contracts.ts';
import { createGatewayHandler } from '../../workers/handler.ts';
import type { ProviderDirectory, ResolvedProvider } from '../../workers/providers/directory.ts';
import { createNodeUpstream } from '../../workers/runtime/upstream-node.ts';
import { KeyCache } from '../../workers/sync/key-cache.ts';
import { ResourceCache } from '../../workers/sync/resource-cache.ts';
import type { CircuitBreaker } from '../../workers/routing/circuit-breaker.ts';
import type { RoutingDeps } from '../../workers/routing/engine.ts';
import type { SharedStore } from '../../src/domain/store.ts';

export const GATEWAY_KEY = 'gw_test_key_0123456789abcdef';
export const ORG_KEY = 'gw_org_key_0123456789abcdef';
const sha = (raw: string) => createHash('sha256').update(raw).digest('hex');

const resolved = (id: string, workspaceId: string | null, defaults: ResolvedKey['defaults'] = {}): ResolvedKey => ({
  id, organisationId: 'org-1', workspaceId, userId: null, type: workspaceId ? 'workspace-service' : 'organisation-service', status: 'active',
  scopes: ['completions.write'], expiresAt: null, rateLimits: [], usageLimits: null, defaults, version: 1,
});

export interface Harness {
  url: string;
  records: UsageRecord[];
  /** Managed providers by `${workspaceId}/${slug}`. */
  providers: Map<string, ResolvedProvider>;
  catalogue: CatalogueModel[];
  /** Saved resources (configs, guardrails, guardrail_policy) by `${type}/${key}`, as gRPC Resolve would answer. */
  resources: Map<string, Record<string, unknown>>;
  /** Changes a saved resource and pushes the change as the Watch stream would. */
  publish(type: string, key: string, payload: Record<string, unknown> | null): void;
  /** The usage record of the request that answered with this trace id. */
  recordFor(traceId: string): Promise<UsageRecord>;
  errors: unknown[];
  setDirectoryDown(down: boolean): void;
  /** Resolves when `n` usage records have been pushed. */
  waitForRecords(n: number): Promise<UsageRecord[]>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  keyDefaults?: ResolvedKey['defaults'];
  trusted?: string[];
  /** Serve saved resources (configs, guardrails) from `Harness.resources`. */
  withResources?: boolean;
  store?: SharedStore;
  breaker?: CircuitBreaker | null;
  routing?: Partial<RoutingDeps>;
  streamIdleTimeoutMs?: number;
  guardrailsFailOpen?: boolean;
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const keys = new Map<string, ResolvedKey>([
    [sha(GATEWAY_KEY), resolved('key-1', 'ws-1', opts.keyDefaults)],
    [sha(ORG_KEY), resolved('key-org', null)],
  ]);
  const cache = new KeyCache({ resolveKey: async (h) => keys.get(h) ?? null }, { ttlMs: 60_000, negativeTtlMs: 1000, maxStaleMs: 60_000 });
  const providers = new Map<string, ResolvedProvider>();
  const catalogue: CatalogueModel[] = [];
  let down = false;
  const directory: ProviderDirectory = {
    async resolveProvider(ws, slug) {
      if (down) throw new ControlPlaneUnavailable('down');
      return providers.get(`${ws}/${slug}`) ?? null;
    },
  };
  const models: ModelCatalogue = { listModels: async () => catalogue };
  const saved = new Map<string, Record<string, unknown>>();
  let published = 1;
  // Held as a worker holds them; a test changes one with publish() (the Watch push).
  const resources = opts.withResources
    ? new ResourceCache({ resolveResource: async (type, k) => { const p = saved.get(`${type}/${k}`); return p ? { version: 1, payload: p } : null; } }, { ttlMs: 60_000, negativeTtlMs: 60_000, maxStaleMs: 60_000 })
    : undefined;
  const records: UsageRecord[] = [];
  const waiters: { n: number; resolve: (r: UsageRecord[]) => void }[] = [];
  // The mock provider listens on 127.0.0.1: trusted, as an operator would trust a local model server.
  const trustedHosts = trustedHostSet(opts.trusted ?? ['127.0.0.1']);
  const upstream = createNodeUpstream({ trustedHosts });
  const errors: unknown[] = [];
  const logger = createLogger('worker', 'error');
  const handler = createGatewayHandler({
    keys: cache,
    hashKey: sha,
    upstream: upstream.fetch,
    usage: {
      push(r) {
        records.push(r);
        for (const w of [...waiters]) if (records.length >= w.n) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(records.slice());
        }
      },
    },
    trustedHosts,
    logger: { ...logger, error: (msg: string, fields?: Record<string, unknown>) => void errors.push({ msg, ...fields }) } as typeof logger,
    health: () => ({ status: 'ok' }),
    providers: directory,
    models,
    ...(resources ? { resources } : {}),
    ...(opts.store ? { store: opts.store } : {}),
    ...(opts.breaker !== undefined ? { breaker: opts.breaker } : {}),
    ...(opts.routing ? { routing: opts.routing } : {}),
    ...(opts.streamIdleTimeoutMs ? { streamIdleTimeoutMs: opts.streamIdleTimeoutMs } : {}),
    ...(opts.guardrailsFailOpen ? { guardrailsFailOpen: true } : {}),
  });
  const server: Server = createServer((req, res) => {
    handler(toWebRequest(req, res, `http://${req.headers.host}`)).then((r) => sendWebResponse(res, r), (err) => {
      res.writeHead(500);
      res.end(String(err));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const waitForRecords = (n: number): Promise<UsageRecord[]> => {
    if (records.length >= n) return Promise.resolve(records.slice());
    return new Promise((resolve) => waiters.push({ n, resolve }));
  };
  return {
    url: `http://127.0.0.1:${port}`,
    records,
    providers,
    catalogue,
    resources: saved,
    publish(type, k, payload) {
      if (payload) saved.set(`${type}/${k}`, payload);
      else saved.delete(`${type}/${k}`);
      resources?.apply({ version: ++published, resourceType: type, resourceKey: k, action: payload ? 'upsert' : 'delete', key: null, resource: payload ? { version: published, payload } : null });
    },
    async recordFor(traceId) {
      for (;;) {
        const found = records.find((r) => r.trace_id === traceId);
        if (found) return found;
        await waitForRecords(records.length + 1);
      }
    },
    errors,
    setDirectoryDown: (v) => (down = v),
    waitForRecords,
    async close() {
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
      await upstream.close();
    },
  };
}
