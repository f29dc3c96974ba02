// Checks that call out: JWT verification against JWKS (keys merged from every comma-separated
// URI), the webhook check, and the log shipper. Every call goes through deps.fetch, which is
// the gateway's SSRF-checked upstream with a timeout.
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { FORBIDDEN_FORWARD_HEADER, isForwardableHeader } from '../forward-headers.ts';
import type { CheckFn } from '../types.ts';
import { CheckParamError, num, str } from './params.ts';

const jwksCache = new Map<string, { keys: JSONWebKeySet; until: number }>();

async function jwksFor(uris: string[], maxAgeMs: number, deps: Parameters<CheckFn>[2]): Promise<JSONWebKeySet> {
  const id = uris.join(',');
  const hit = jwksCache.get(id);
  if (hit && hit.until > deps.now()) return hit.keys;
  const sets = await Promise.all(
    uris.map(async (uri) => {
      const res = await deps.fetch(uri, { method: 'GET', headers: { accept: 'application/json' }, timeoutMs: 5_000 });
      if (res.status !== 200) throw new Error(`JWKS ${uri} answered ${res.status}`);
      const body = JSON.parse(await res.text()) as { keys?: unknown };
      if (!Array.isArray(body.keys)) throw new Error(`JWKS ${uri} has no keys`);
      return body.keys as JSONWebKeySet['keys'];
    }),
  );
  const keys = { keys: sets.flat() };
  if (jwksCache.size > 100) jwksCache.clear();
  jwksCache.set(id, { keys, until: deps.now() + maxAgeMs });
  return keys;
}

export const jwt: CheckFn = async (ctx, p, deps) => {
  const uris = str(p, 'jwksUri')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  if (!uris.length) throw new CheckParamError('jwksUri is required');
  const headerKey = str(p, 'headerKey').toLowerCase();
  const raw = ctx.request.headers[headerKey];
  if (!raw) return { verdict: false, data: { reason: `no token in ${headerKey}` } };
  const token = raw.replace(/^bearer\s+/i, '');
  const keys = await jwksFor(uris, num(p, 'cacheMaxAge', 86_400) * 1_000, deps);
  try {
    const { payload } = await jwtVerify(token, createLocalJWKSet(keys), {
      clockTolerance: num(p, 'clockTolerance', 5),
      maxTokenAge: typeof p.maxTokenAge === 'string' || typeof p.maxTokenAge === 'number' ? p.maxTokenAge : '1d',
      currentDate: new Date(deps.now()),
    });
    return { verdict: true, data: { subject: payload.sub ?? null, issuer: payload.iss ?? null } };
  } catch (err) {
    return { verdict: false, data: { reason: (err as Error).message } };
  }
};

function forwarded(p: Record<string, unknown>, incoming: Record<string, string>): Record<string, string> {
  const names = p.forwardHeaders;
  if (names === undefined) return {};
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) throw new CheckParamError('forwardHeaders must be an array of header names');
  const out: Record<string, string> = {};
  for (const n of names as string[]) {
    if (!isForwardableHeader(n)) throw new CheckParamError(`forwardHeaders may not name ${n} (${FORBIDDEN_FORWARD_HEADER})`);
    const v = incoming[n.toLowerCase()];
    if (v !== undefined) out[n.toLowerCase()] = v;
  }
  return out;
}

function staticHeaders(p: Record<string, unknown>): Record<string, string> {
  const h = p.headers;
  if (h === undefined) return {};
  const obj = typeof h === 'string' ? (JSON.parse(h) as unknown) : h;
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) throw new CheckParamError('headers must be an object');
  return Object.fromEntries(Object.entries(obj as Record<string, unknown>).map(([k, v]) => [k.toLowerCase(), String(v)]));
}

/** POSTs the context to the operator's URL; its answer gives the verdict and may transform. */
export const webhook: CheckFn = async (ctx, p, deps) => {
  const url = str(p, 'webhookURL');
  const body = JSON.stringify({
    eventType: ctx.event,
    requestType: ctx.requestType,
    request: { json: ctx.request.json },
    response: ctx.response ? { json: ctx.response.json, status: ctx.response.status, text: ctx.response.text } : undefined,
    metadata: ctx.metadata,
  });
  const res = await deps.fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...staticHeaders(p), ...forwarded(p, ctx.request.headers) },
    body,
    timeoutMs: num(p, 'timeout', 3_000),
  });
  const text = await res.text();
  if (res.status < 200 || res.status >= 300) throw new Error(`webhook answered ${res.status}`);
  const answer = JSON.parse(text) as { verdict?: unknown; data?: unknown; transformedData?: { request?: { json?: unknown }; response?: { json?: unknown } } };
  if (typeof answer.verdict !== 'boolean') throw new Error('webhook answer has no boolean verdict');
  const t = answer.transformedData;
  const transformedData =
    t && (t.request?.json || t.response?.json)
      ? {
          ...(t.request?.json && typeof t.request.json === 'object' ? { request: { json: t.request.json as Record<string, unknown> } } : {}),
          ...(t.response?.json ? { response: { json: t.response.json } } : {}),
        }
      : undefined;
  return { verdict: answer.verdict, data: answer.data ?? null, ...(transformedData ? { transformedData } : {}) };
};

/** Ships the context to a URL; always passes (a failed shipment is reported in data). */
export const log: CheckFn = async (ctx, p, deps) => {
  const url = str(p, 'logURL');
  try {
    const res = await deps.fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...staticHeaders(p) },
      body: JSON.stringify({ eventType: ctx.event, request: { json: ctx.request.json }, response: ctx.response ? { json: ctx.response.json, status: ctx.response.status } : undefined, metadata: ctx.metadata }),
      timeoutMs: num(p, 'timeout', 3_000),
    });
    return { verdict: true, data: { logged: res.status < 300, status: res.status } };
  } catch (err) {
    return { verdict: true, data: { logged: false, error: (err as Error).message } };
  }
};
