import type { HeaderRecord } from '../../src/domain/http/buffered-response.ts';

// Header hygiene in both directions: nothing of the gateway's own or hop-by-hop leaks upstream
// or back to the caller.

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'proxy-authenticate', 'proxy-authorization']);
// The answer is re-framed by our server: its own length and transfer framing apply.
const DROP_FROM_RESPONSE = new Set([...HOP_BY_HOP, 'content-length']);
// Pass-through forwards the caller's headers except these (reference gateway: proxyHandler),
// and the caller's credentials: the provider's own auth headers are added instead.
const DROP_FROM_PASS_THROUGH = new Set([...HOP_BY_HOP, 'host', 'content-length', 'expect', 'authorization', 'x-api-key', 'api-key', 'accept-encoding']);

function addForwarded(out: Record<string, string>, incoming: Headers, providerHeaders: readonly string[], forward: readonly string[]): void {
  for (const name of providerHeaders) {
    // Provider headers are accepted plain or as x-gateway-<name> (reference gateway, §3).
    const v = incoming.get(name) ?? incoming.get(`x-gateway-${name}`);
    if (v !== null) out[name] = v;
  }
  // x-gateway-forward-headers / forward_headers: as given, unprocessed.
  for (const name of forward) {
    const v = incoming.get(name);
    if (v !== null) out[name.toLowerCase()] = v;
  }
}

/** Headers for a built-in route: content type, accept, the provider's own and forwarded headers, then auth. */
export function requestHeadersFor(incoming: Headers, providerHeaders: readonly string[], forward: readonly string[], contentType: string | null, auth: Record<string, string>): Record<string, string> {
  // identity: bodies are read for usage, and relayed as they are.
  const out: Record<string, string> = { accept: incoming.get('accept') ?? 'application/json', 'accept-encoding': 'identity' };
  if (contentType) out['content-type'] = contentType;
  addForwarded(out, incoming, providerHeaders, forward);
  return Object.assign(out, auth);
}

/** Pass-through: the caller's headers minus the gateway's own and the framing, then auth. */
export function passThroughRequestHeaders(incoming: Headers, forward: readonly string[], auth: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  incoming.forEach((value, name) => {
    if (name.startsWith('x-gateway-') || DROP_FROM_PASS_THROUGH.has(name)) return;
    out[name] = value;
  });
  // Usage is read on the side; the bytes still reach the caller unchanged.
  out['accept-encoding'] = 'identity';
  addForwarded(out, incoming, [], forward);
  return Object.assign(out, auth);
}

export function responseHeadersFrom(upstream: Record<string, string | string[] | undefined>, extra: Record<string, string>): HeaderRecord {
  const out: HeaderRecord = {};
  for (const name in upstream) {
    const value = upstream[name];
    if (value !== undefined && !DROP_FROM_RESPONSE.has(name)) out[name] = value;
  }
  for (const k in extra) out[k] = extra[k]!;
  return out;
}
