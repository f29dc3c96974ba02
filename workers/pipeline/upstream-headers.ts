import type { HeaderRecord } from '../../src/domain/http/buffered-response.ts';

// Header hygiene in both directions: nothing of the gateway's own or hop-by-hop leaks upstream
// or back to the caller.

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'proxy-authenticate', 'proxy-authorization']);
// The answer is re-framed by our server: its own length and transfer framing apply.
const DROP_FROM_RESPONSE = new Set([...HOP_BY_HOP, 'content-length']);

export function requestHeadersFor(incoming: Headers, allowed: readonly string[], auth: Record<string, string>): Record<string, string> {
  // identity: bodies are read for usage, and relayed as they are.
  const out: Record<string, string> = { 'content-type': 'application/json', accept: incoming.get('accept') ?? 'application/json', 'accept-encoding': 'identity' };
  for (const name of allowed) {
    const v = incoming.get(name);
    if (v !== null) out[name] = v;
  }
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
