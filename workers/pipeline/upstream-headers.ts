// Header hygiene in both directions: nothing of the gateway's own or hop-by-hop leaks upstream
// or back to the caller.

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'proxy-authenticate', 'proxy-authorization']);
// fetch() has already decoded the body, so its length and encoding no longer hold.
const DROP_FROM_RESPONSE = new Set([...HOP_BY_HOP, 'content-encoding', 'content-length']);

export function requestHeadersFor(incoming: Headers, allowed: readonly string[], auth: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = { 'content-type': 'application/json', accept: incoming.get('accept') ?? 'application/json' };
  for (const name of allowed) {
    const v = incoming.get(name);
    if (v !== null) out[name] = v;
  }
  return Object.assign(out, auth);
}

export function responseHeadersFrom(upstream: Headers, extra: Record<string, string>): Headers {
  const out = new Headers();
  upstream.forEach((value, name) => {
    if (!DROP_FROM_RESPONSE.has(name)) out.append(name, value);
  });
  for (const [k, v] of Object.entries(extra)) out.set(k, v);
  return out;
}
