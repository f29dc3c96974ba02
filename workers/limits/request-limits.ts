// Issue 8 on the request path: one admission per request covering the key's limits and every
// matching policy (one store call, one Redis round trip), then, when the request is accounted,
// its cost from the pricing catalogue and the settlement of what was reserved (off the path).
import { bufferedParts } from '../../src/domain/http/buffered-response.ts';
import type { LimitStore } from '../../src/domain/limits/limit-store.ts';
import type { Logger } from '../../src/domain/logger.ts';
import type { RequestFacts } from '../../src/domain/policies/conditions.ts';
import { costOf } from '../../src/domain/pricing/cost.ts';
import { PRICING_CATALOGUE } from '../../src/domain/pricing/catalogue.ts';
import { findPrice } from '../../src/domain/pricing/find-price.ts';
import type { CustomModelPrice, ModelPrice } from '../../src/domain/pricing/types.ts';
import type { UsageAlert } from '../../src/domain/usage-record.ts';
import type { RequestState } from '../pipeline/request-state.ts';
import type { ResourceCache } from '../sync/resource-cache.ts';
import { admit } from './admission.ts';
import { estimateTokens, keyChecks, type UsageEstimate } from './key-checks.ts';
import { policyChecks, type PolicySet } from './policy-checks.ts';

export const POLICY_SET = 'policy_set';

export interface LimitDeps {
  store: LimitStore;
  resources?: ResourceCache | undefined;
  logger: Logger;
  /** Operator prices for custom models (checked before the catalogue). */
  customPrices?: readonly CustomModelPrice[];
  now?: () => number;
}

/** The facts policy conditions and group-by keys read (control-plane-schemas 1.5). */
export function requestFacts(state: RequestState, llm: { model?: string | null; provider?: string | null } = {}): RequestFacts {
  const metadata: Record<string, string | number | boolean | null> = {};
  for (const [k, v] of Object.entries(state.metadata ?? {})) {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v === null) metadata[k] = v;
  }
  return {
    api_key: state.key?.id ?? null,
    organisation_id: state.key?.organisationId ?? null,
    workspace_id: state.key?.workspaceId ?? null,
    metadata,
    model: llm.model ?? (state.model || null),
    provider: llm.provider ?? (state.provider || null),
  };
}

const CATALOGUE_PROVIDERS = Object.keys(PRICING_CATALOGUE);

function priceOf(deps: LimitDeps, provider: string | null, model: string | null, custom: readonly CustomModelPrice[] = []): ModelPrice | null {
  if (!model) return null;
  if (provider && !provider.startsWith('@')) return findPrice(provider, model, [...custom, ...(deps.customPrices ?? [])])?.price ?? null;
  // Routed by a config (the provider is known only later): the model's catalogue price wherever it
  // is listed by its own id, so cost budgets still reserve something close to the real cost.
  for (const p of CATALOGUE_PROVIDERS) {
    const hit = findPrice(p, model, deps.customPrices ?? []);
    if (hit && hit.rule !== 'prefix') return hit.price;
  }
  return null;
}

interface ManagedPayload {
  provider?: unknown;
  models?: { items?: { slug?: unknown; pricing_config?: { pay_as_you_go?: Record<string, { price?: unknown }> } | null }[] };
}

/**
 * A managed provider's (`@slug`) custom model prices (integration models' pricing_config,
 * control-plane-schemas 2.4: `pay_as_you_go.request_token` / `response_token`, USD cents per token
 * as the pricing API states them), as per-token USD prices for findPrice.
 */
export function managedPrices(payload: ManagedPayload | null | undefined): { provider: string; prices: CustomModelPrice[] } | null {
  if (!payload || typeof payload.provider !== 'string') return null;
  const provider = payload.provider;
  const prices: CustomModelPrice[] = [];
  for (const m of payload.models?.items ?? []) {
    const payg = m.pricing_config?.pay_as_you_go;
    const input = payg?.request_token?.price;
    const output = payg?.response_token?.price;
    if (typeof m.slug !== 'string' || typeof input !== 'number' || typeof output !== 'number') continue;
    const cached = payg?.cache_read_input_token?.price;
    const write = payg?.cache_write_input_token?.price;
    prices.push({
      provider,
      model: m.slug,
      input: input / 100,
      output: output / 100,
      ...(typeof cached === 'number' ? { cached_input: cached / 100 } : {}),
      ...(typeof write === 'number' ? { cache_write: write / 100 } : {}),
    });
  }
  return { provider, prices };
}

async function managedProvider(deps: LimitDeps, state: RequestState, provider: string | null): Promise<{ provider: string; prices: CustomModelPrice[] } | null> {
  if (!provider?.startsWith('@') || !deps.resources || !state.key?.workspaceId) return null;
  try {
    const r = await deps.resources.getOrStale('provider', `${state.key.workspaceId}:${provider.slice(1)}`);
    return managedPrices(r?.payload as ManagedPayload | undefined);
  } catch {
    return null; // routing reports an unreachable control plane on its own
  }
}

/**
 * What the request will likely use: prompt characters / 4 plus its completion allowance, and that
 * priced when the provider (x-gateway-provider) and model are known before routing. Reserving the
 * estimate (never the whole remaining budget) bounds the overshoot of concurrent requests.
 */
export function estimateUsage(deps: LimitDeps, json: Record<string, unknown> | null, provider: string | null, custom: readonly CustomModelPrice[] = []): UsageEstimate {
  const tokens = estimateTokens(json);
  const model = typeof json?.model === 'string' ? json.model : null;
  const price = priceOf(deps, provider, model, custom);
  if (!price) return { tokens, cost: null };
  const max = [json?.max_completion_tokens, json?.max_tokens, json?.max_output_tokens].find((v) => typeof v === 'number' && v >= 0) as number | undefined;
  const completion = Math.min(tokens, max ?? 256);
  return { tokens, cost: costOf({ prompt: tokens - completion, completion }, price).usd_number };
}

/** Organisations whose policy set could not be fetched, and until when not to ask again (epoch ms). */
const unavailable = new Map<string, number>();
const RETRY_POLICY_SET_MS = 5_000;

async function policySet(deps: LimitDeps, organisationId: string, now: number): Promise<PolicySet | null> {
  if (!deps.resources) return null;
  const until = unavailable.get(organisationId);
  if (until !== undefined && until > now) return null;
  try {
    const r = await deps.resources.getOrStale(POLICY_SET, organisationId);
    if (until !== undefined) unavailable.delete(organisationId);
    return r ? (r.payload as unknown as PolicySet) : null;
  } catch (err) {
    // Control plane unreachable with nothing cached: the key's own limits still hold, and requests
    // do not each wait for the lookup to fail (held policy sets are served stale by the cache).
    if (unavailable.size > 10_000) unavailable.clear();
    unavailable.set(organisationId, now + RETRY_POLICY_SET_MS);
    deps.logger.warn('policy set unavailable; key limits only', { organisation_id: organisationId, err: String(err) });
    return null;
  }
}

/**
 * Admits the authenticated request or throws the 429 (rate_limit_exceeded / usage_limit_exceeded)
 * or, fail-closed without Redis, the 503. Returns the x-ratelimit-* headers for the answer and
 * leaves the settlement on the state for `accountRequest`.
 */
export async function admitRequest(deps: LimitDeps | undefined, state: RequestState, json: Record<string, unknown> | null, provider: string | null): Promise<Record<string, string>> {
  const key = state.key;
  if (!deps || !key) return {};
  const now = (deps.now ?? Date.now)();
  const set = await policySet(deps, key.organisationId, now);
  const managed = await managedProvider(deps, state, provider);
  if (managed?.prices.length) state.customPrices = managed.prices;
  // Nothing limits this key: no estimate, no pricing, no store call (the plain request's path).
  if (!key.rateLimits.length && key.usageLimits?.credit_limit == null && !set?.rate_limits?.length && !set?.usage_limits?.length) return {};
  const estimate = estimateUsage(deps, json, managed?.provider ?? provider, managed?.prices);
  const own = keyChecks(key, estimate, now);
  // A provider chosen later by a config is not known here: conditions on it then do not match.
  const llm = { model: typeof json?.model === 'string' ? json.model : null, provider: managed?.provider ?? (provider && !provider.startsWith('@') ? provider.toLowerCase() : null) };
  const checks = [...own, ...policyChecks(set, requestFacts(state, llm), estimate, now)];
  const admitted = await admit(deps.store, checks);
  state.alerts = admitted.alerts.map((c): UsageAlert => {
    const ofKey = own.includes(c);
    const id = ofKey ? key.id : /\{pul:([^:}]+):/.exec(c.key)?.[1] ?? '';
    return { scope: ofKey ? 'api_key' : 'policy', id, type: c.measure, alert_threshold: c.alertAt ?? 0, credit_limit: c.limit, period_end_ms: c.periodEndMs ?? 0 };
  });
  if (checks.some((c) => c.measure !== 'requests')) {
    state.settleLimits = (s) => {
      admitted.settle({ tokens: s.tokens.total, cost: s.costCents === null ? null : s.costCents / 100 }).catch((err) => deps.logger.warn('limit settlement failed', { trace_id: s.traceId, err: String(err) }));
    };
  }
  return admitted.headers;
}

/** When the request is accounted: its cost (cents, null without a price) and the settlement. */
export function accountRequest(deps: LimitDeps | undefined, state: RequestState): void {
  if (state.key) {
    const price = findPrice(state.provider, state.model, [...state.customPrices, ...(deps?.customPrices ?? [])])?.price;
    if (price && state.model) {
      const t = state.tokens;
      state.costCents = costOf({ prompt: t.prompt, completion: t.completion, ...(t.cachedPrompt ? { cachedPrompt: t.cachedPrompt } : {}) }, price).cents;
    }
  }
  const settle = state.settleLimits;
  state.settleLimits = null; // once, even if accounted twice
  settle?.(state);
}

/** Adds the admission's x-ratelimit-* headers to the answer (fetch answers have immutable headers). */
export function withLimitHeaders(response: Response, headers: Record<string, string>): Response {
  const names = Object.keys(headers);
  if (!names.length) return response;
  // Buffered answers are written from their parts by the Node adapter: the headers go there.
  const parts = bufferedParts(response);
  if (parts) for (const n of names) parts.headers[n] = headers[n]!;
  try {
    for (const n of names) response.headers.set(n, headers[n]!);
    return response;
  } catch {
    const h = new Headers(response.headers);
    for (const n of names) h.set(n, headers[n]!);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers: h });
  }
}
