// The routing engine (issue 7 item 2-4; reference-gateway-behaviour.md routing semantics): walks
// a config tree — single, fallback, loadbalance, conditional, nested to any depth with settings
// inherited — retrying each target with backoff, and answers which target answered.
import { DEFAULT_RETRY_STATUS_CODES, type ConfigNode, type GatewayConfig, type NodeSettings } from '../../src/domain/config/config-schema.ts';
import { AppError } from '../../src/domain/errors.ts';
import type { SharedStore } from '../../src/domain/store.ts';
import type { CircuitBreaker } from './circuit-breaker.ts';
import { factAt, queryMatches, type RoutingFacts } from './conditional.ts';
import { inherit } from './inherit.ts';

/** One provider target, with the settings it inherited. */
export interface Leaf {
  /** JSON path of the target in the config (`config`, `config.targets[1].targets[0]`): x-gateway-last-used-option-index. */
  path: string;
  node: ConfigNode;
  settings: NodeSettings;
}

/** What calling a target produced, as far as routing cares. */
export interface Outcome {
  status: number;
  /** The gateway refused before the provider answered (bad input, auth, SSRF): never retried, never fallen back. */
  gatewayError?: boolean;
  /** The provider could not be reached or timed out: retried whatever the status codes say. */
  networkError?: boolean;
  /** The provider's Retry-After, in ms. */
  retryAfterMs?: number | null;
  /** Frees an answer the engine moves past. */
  discard?(): void;
}

export type CallLeaf<R extends Outcome> = (leaf: Leaf, attempt: number) => Promise<R>;

export interface Routed<R extends Outcome> {
  outcome: R;
  leaf: Leaf;
  /** Retries of the target that answered: x-gateway-retry-attempt-count. */
  retries: number;
  /** Every retry was used and the target still failed (the header then says -1, as the reference does). */
  exhausted: boolean;
}

export interface RoutingDeps {
  sleep(ms: number): Promise<void>;
  random(): number;
  /** Identifies a target for the circuit breaker (provider, host, credentials). */
  targetId?(leaf: Leaf): string;
  breaker?: CircuitBreaker | null;
  /** Sticky loadbalance choices (shared between workers). */
  sticky?: SharedStore | null;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** A Retry-After longer than this is not waited for: the answer goes back as it is. */
  maxRetryAfterMs?: number;
}

const ok = (o: Outcome) => o.status >= 200 && o.status < 300;

export function retryDelay(attempt: number, o: Outcome, settings: NodeSettings, deps: RoutingDeps): number | null {
  if (o.retryAfterMs != null && settings.retry?.use_retry_after_header !== false) {
    return o.retryAfterMs > (deps.maxRetryAfterMs ?? 60_000) ? null : Math.max(0, o.retryAfterMs);
  }
  const exp = Math.min(deps.backoffMaxMs ?? 10_000, (deps.backoffBaseMs ?? 100) * 2 ** attempt);
  return Math.round(exp / 2 + (exp / 2) * deps.random()); // equal jitter
}

export const circuitOpen = (): AppError =>
  new AppError(503, 'service_unavailable_error', 'all_targets_unavailable', 'Every target of this request is failing (circuit open). Retry later.');

async function runLeaf<R extends Outcome>(leaf: Leaf, call: CallLeaf<R>, deps: RoutingDeps): Promise<Routed<R>> {
  const attempts = leaf.settings.retry?.attempts ?? 0;
  const codes: readonly number[] = leaf.settings.retry?.on_status_codes ?? DEFAULT_RETRY_STATUS_CODES;
  const id = deps.breaker && deps.targetId ? deps.targetId(leaf) : null;
  for (let attempt = 0; ; attempt++) {
    const outcome = await call(leaf, attempt);
    if (id && !outcome.gatewayError) deps.breaker!.record(id, ok(outcome) || (outcome.status < 500 && outcome.status !== 429 && outcome.status !== 408 && !outcome.networkError));
    const retryable = !ok(outcome) && !outcome.gatewayError && (outcome.networkError || codes.includes(outcome.status));
    if (!retryable) return { outcome, leaf, retries: attempt, exhausted: false };
    if (attempt >= attempts) return { outcome, leaf, retries: attempt, exhausted: attempts > 0 };
    const delay = retryDelay(attempt, outcome, leaf.settings, deps);
    if (delay === null) return { outcome, leaf, retries: attempt, exhausted: false };
    outcome.discard?.();
    await deps.sleep(delay);
  }
}

/** Is any leaf under this node callable (its circuit not open)? */
function reachable(node: ConfigNode, path: string, settings: NodeSettings, deps: RoutingDeps): boolean {
  if (!deps.breaker || !deps.targetId) return true;
  if (!node.strategy) return deps.breaker.state(deps.targetId({ path, node, settings: inherit(settings, node) })) !== 'open';
  return (node.targets ?? []).some((t, i) => reachable(t, `${path}.targets[${i}]`, inherit(settings, node), deps));
}

async function stickyChoice(node: ConfigNode, path: string, facts: RoutingFacts, deps: RoutingDeps, choose: () => number): Promise<number> {
  const sticky = node.strategy?.sticky;
  if (!sticky || !deps.sticky) return choose();
  const values = sticky.hash_fields.map((f) => JSON.stringify(factAt(facts, f) ?? null)).join('\u0000');
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${path}\u0000${values}`)));
  const key = `sticky:${path}:${[...digest.slice(0, 12)].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
  const raw = await deps.sticky.get(key).catch(() => null);
  const held = raw === null ? -1 : Number(raw);
  const targets = node.targets ?? [];
  if (Number.isInteger(held) && held >= 0 && held < targets.length && (targets[held]!.weight ?? 1) > 0) return held;
  const index = choose();
  await deps.sticky.set(key, String(index), sticky.ttl * 1_000).catch(() => {});
  return index;
}

async function walk<R extends Outcome>(node: ConfigNode, path: string, parent: NodeSettings, facts: RoutingFacts, call: CallLeaf<R>, deps: RoutingDeps): Promise<Routed<R>> {
  const settings = inherit(parent, node);
  const strategy = node.strategy;
  if (!strategy) {
    const leaf = { path, node, settings };
    if (deps.breaker && deps.targetId && !deps.breaker.allow(deps.targetId(leaf))) throw circuitOpen();
    return runLeaf(leaf, call, deps);
  }
  const targets = node.targets ?? [];
  const child = (i: number) => walk(targets[i]!, `${path}.targets[${i}]`, settings, facts, call, deps);

  switch (strategy.mode) {
    case 'single':
      return child(0);
    case 'fallback': {
      let last: Routed<R> | null = null;
      let lastError: unknown = null;
      for (let i = 0; i < targets.length; i++) {
        if (!reachable(targets[i]!, `${path}.targets[${i}]`, settings, deps)) continue;
        let r: Routed<R>;
        try {
          r = await child(i);
        } catch (err) {
          // A nested conditional without a match, or every target of a nested node open: try the next.
          if (err instanceof AppError && err.code === 'all_targets_unavailable') {
            lastError = err;
            continue;
          }
          throw err;
        }
        const o = r.outcome;
        const moveOn = !ok(o) && !o.gatewayError && (!strategy.on_status_codes || strategy.on_status_codes.includes(o.status) || !!o.networkError);
        if (!moveOn || i === targets.length - 1) return r;
        last?.outcome.discard?.();
        last = r;
      }
      if (last) return last;
      throw lastError ?? circuitOpen();
    }
    case 'loadbalance': {
      const candidates = targets.map((t, i) => ({ i, w: t.weight ?? 1 })).filter((c) => c.w > 0 && reachable(targets[c.i]!, `${path}.targets[${c.i}]`, settings, deps));
      if (!candidates.length) throw circuitOpen();
      const choose = () => {
        const total = candidates.reduce((s, c) => s + c.w, 0);
        let x = deps.random() * total;
        for (const c of candidates) if ((x -= c.w) < 0) return c.i;
        return candidates[candidates.length - 1]!.i;
      };
      return child(await stickyChoice(node, path, facts, deps, choose));
    }
    case 'conditional': {
      const matched = strategy.conditions?.find((c) => queryMatches(c.query, facts))?.then ?? strategy.default;
      const index = matched === undefined ? -1 : targets.findIndex((t) => t.name === matched);
      if (index < 0) {
        throw new AppError(400, 'invalid_request_error', 'no_matching_target', 'No condition of the conditional config matched this request and it has no default target.', 'x-gateway-config');
      }
      return child(index);
    }
  }
}

/** x-gateway-retry-attempt-count: the retries made, or -1 when they ran out. */
export const retryCountHeader = (r: Routed<Outcome>): string => (r.exhausted ? '-1' : String(r.retries));

/** Retry-After of a provider answer in ms: `retry-after-ms`, `x-ms-retry-after-ms`, or `retry-after` (seconds or an HTTP date). */
export function retryAfterMs(headers: Record<string, string | string[] | undefined>, now = Date.now()): number | null {
  const one = (name: string) => {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  for (const name of ['retry-after-ms', 'x-ms-retry-after-ms']) {
    const v = Number(one(name));
    if (one(name) !== undefined && Number.isFinite(v) && v >= 0) return v;
  }
  const ra = one('retry-after');
  if (ra === undefined) return null;
  const seconds = Number(ra);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1_000;
  const date = Date.parse(ra);
  return Number.isFinite(date) ? Math.max(0, date - now) : null;
}

/** Routes one request through `config`, calling `call` for each target attempt. */
export function route<R extends Outcome>(config: GatewayConfig, facts: RoutingFacts, call: CallLeaf<R>, deps: RoutingDeps): Promise<Routed<R>> {
  return walk(config, 'config', {}, facts, call, deps);
}
