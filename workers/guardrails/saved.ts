// Guardrails as a request meets them (issue 7 item 6): a config's inline and saved guardrails, and
// the organisation's default guardrails for the key's workspace (`guardrail_policy`), resolved
// through the worker's resource cache; checks call out only through the SSRF-checked upstream.
import type { ResolvedKey } from '../../src/domain/api-key.ts';
import type { GuardrailEntry } from '../../src/domain/config/config-schema.ts';
import { AppError } from '../../src/domain/errors.ts';
import type { ResolvedResource } from '../../src/domain/sync-codec.ts';
import { ControlPlaneUnavailable, type UpstreamFetch } from '../contracts.ts';
import type { ResourceCache } from '../sync/resource-cache.ts';
import { hooksFrom } from './hooks.ts';
import type { CheckDeps, Hook, HookCheck } from './types.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const hooks = new WeakMap<ResolvedResource, Hook>();

function hookOf(r: ResolvedResource): Hook {
  let h = hooks.get(r);
  if (!h) {
    const p = r.payload as { id: string; checks?: HookCheck[]; actions?: { deny?: boolean; async?: boolean; on_fail?: Record<string, unknown>; on_success?: Record<string, unknown> } };
    const a = p.actions ?? {};
    h = {
      id: p.id,
      type: 'guardrail',
      checks: p.checks ?? [],
      deny: a.deny === true,
      async: a.async === true,
      sequential: false,
      ...(a.on_fail ? { on_fail: a.on_fail } : {}),
      ...(a.on_success ? { on_success: a.on_success } : {}),
    };
    hooks.set(r, h);
  }
  return h;
}

const unavailable = () => new AppError(503, 'service_unavailable_error', 'control_plane_unavailable', 'A guardrail cannot be resolved right now: the control plane is unreachable. Retry shortly.');

async function get(resources: ResourceCache, type: string, key: string): Promise<ResolvedResource | null> {
  try {
    return await resources.getOrStale(type, key);
  } catch (err) {
    if (err instanceof ControlPlaneUnavailable) throw unavailable();
    throw err;
  }
}

/** A saved guardrail by id, or by slug: the workspace's first, then the organisation's. */
export function guardrailLookup(key: ResolvedKey, resources: ResourceCache | undefined): (ref: string) => Promise<Hook | null> {
  return async (ref) => {
    if (!resources) throw new AppError(503, 'service_unavailable_error', 'guardrail_directory_unavailable', 'Saved guardrails cannot be resolved by this worker.');
    let found: ResolvedResource | null = null;
    if (UUID.test(ref)) {
      found = await get(resources, 'guardrail', ref);
      const owner = found?.payload as { organisation_id?: string; workspace_id?: string | null } | undefined;
      // Another tenant's guardrail is as unknown as a missing one.
      if (owner && (owner.organisation_id !== key.organisationId || (owner.workspace_id && owner.workspace_id !== key.workspaceId))) found = null;
    } else {
      if (key.workspaceId) found = await get(resources, 'guardrail', `${key.workspaceId}:${ref}`);
      found ??= await get(resources, 'guardrail', `${key.organisationId}:${ref}`);
    }
    return found ? hookOf(found) : null;
  };
}

/** Hooks for one direction; an unknown saved guardrail is the caller's mistake (400). */
export async function hooksFor(entries: GuardrailEntry[] | undefined, prefix: string, lookup: (ref: string) => Promise<Hook | null>): Promise<Hook[]> {
  if (!entries?.length) return [];
  for (const e of entries) {
    if (typeof e === 'string' && !(await lookup(e))) throw new AppError(400, 'invalid_request_error', 'guardrail_not_found', `No guardrail "${e}" for this workspace.`, `x-gateway-config: ${prefix}`);
  }
  return hooksFrom(entries, prefix, lookup);
}

export interface OrgDefaults {
  input: string[];
  output: string[];
}

const NONE: OrgDefaults = { input: [], output: [] };

/** The organisation's default guardrails for the key's workspace, after its exclusions. Sync on a cache hit. */
export function orgDefaults(key: ResolvedKey, resources: ResourceCache | undefined): OrgDefaults | Promise<OrgDefaults> {
  const ws = key.workspaceId;
  if (!resources || !ws) return NONE;
  const read = (r: ResolvedResource | null): OrgDefaults => {
    const p = r?.payload as { input_guardrails?: string[]; output_guardrails?: string[] } | undefined;
    return p && (p.input_guardrails?.length || p.output_guardrails?.length) ? { input: p.input_guardrails ?? [], output: p.output_guardrails ?? [] } : NONE;
  };
  let got;
  try {
    got = resources.get('guardrail_policy', ws);
  } catch (err) {
    if (err instanceof ControlPlaneUnavailable) throw unavailable();
    throw err;
  }
  if (got instanceof Promise) {
    const fresh = got.then(
      (r) => {
        const d = read(r);
        remember(resources, ws, d);
        return d;
      },
      (err) => {
        throw err instanceof ControlPlaneUnavailable ? unavailable() : err;
      },
    );
    // While the policy is re-read (its TTL passed), the last one held answers: a plain request
    // never waits on the control plane for a policy it already knows (Watch pushes changes).
    const held = lastPolicy.get(resources)?.get(ws);
    if (held) {
      fresh.catch(() => {});
      return held;
    }
    return fresh;
  }
  const d = read(got);
  remember(resources, ws, d);
  return d;
}

const lastPolicy = new WeakMap<ResourceCache, Map<string, OrgDefaults>>();
function remember(resources: ResourceCache, workspaceId: string, d: OrgDefaults): void {
  let m = lastPolicy.get(resources);
  if (!m) lastPolicy.set(resources, (m = new Map()));
  if (m.get(workspaceId) === d) return;
  if (m.size >= 10_000) m.clear();
  m.set(workspaceId, d);
}

const td = new TextDecoder();

/** What checks may call: webhooks, JWKS, URL probes, through the worker's SSRF-checked upstream. */
export function checkDeps(upstream: UpstreamFetch): CheckDeps {
  return {
    now: Date.now,
    async fetch(url, init) {
      const lower: Record<string, string> = {};
      for (const k in init.headers) lower[k.toLowerCase()] = init.headers[k]!;
      const res = await upstream(url, { method: init.method, headers: lower, body: init.body ?? null, signal: AbortSignal.timeout(init.timeoutMs) });
      return { status: res.status, text: async () => td.decode(await res.bytes()) };
    },
  };
}
