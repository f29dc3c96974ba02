// Which request headers a guardrail check may forward to its own endpoint (`forwardHeaders`).
// gateway-spec "Policies, guardrails, configs, deployments": validated on create and update;
// credential, cloud-metadata, internal-routing and hop-by-hop headers and invalid names are refused.
// Forwarding any of these would hand a caller's secrets, the gateway's routing or a metadata
// service's token to a third-party URL, or break the connection to it.
import { z } from 'zod';

/** RFC 9110 `token`: what a header field name may be. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
export const MAX_HEADER_NAME_LENGTH = 256;
export const MAX_FORWARD_HEADERS = 50;

export type RestrictedKind = 'credential' | 'cloud_metadata' | 'internal_routing' | 'hop_by_hop';

/** Exact names (lower case) by kind. */
const EXACT: Record<RestrictedKind, readonly string[]> = {
  credential: [
    'authorization',
    'proxy-authorization',
    'cookie',
    'set-cookie',
    // provider credentials in their own header forms
    'x-api-key',
    'api-key',
    'x-goog-api-key',
    'x-amz-security-token',
    'x-auth-token',
    'x-access-token',
    'x-csrf-token',
    'x-xsrf-token',
  ],
  cloud_metadata: [
    'metadata', // Azure IMDS (`Metadata: true`)
    'metadata-flavor', // GCP
    'x-google-metadata-request',
    'x-aws-ec2-metadata-token',
    'x-aws-ec2-metadata-token-ttl-seconds',
    'x-identity-header', // Azure App Service managed identity
    'x-ms-identity-header',
  ],
  internal_routing: [
    'host',
    'forwarded',
    'x-real-ip',
    'x-client-ip',
    'true-client-ip',
    'cf-connecting-ip',
    'x-original-url',
    'x-original-uri',
    'x-rewrite-url',
    'x-original-host',
    'x-http-method-override',
    'x-method-override',
    'via',
  ],
  hop_by_hop: [
    'connection',
    'keep-alive',
    'proxy-authenticate',
    'proxy-connection',
    'te',
    'trailer',
    'trailers',
    'transfer-encoding',
    'upgrade',
    'content-length', // framing of our own request to the check's endpoint
    'expect',
  ],
};

/** Prefixes (lower case) by kind. */
const PREFIXES: Record<RestrictedKind, readonly string[]> = {
  credential: ['x-amz-'],
  cloud_metadata: ['x-aws-ec2-metadata-', 'metadata-'],
  // `x-gateway-*` carries the API key, provider credentials, configs and routing (reference §3).
  internal_routing: ['x-gateway-', 'x-forwarded-', 'x-envoy-', 'x-original-', 'x-vercel-', 'cf-'],
  hop_by_hop: [],
};

/** Any name spelling a secret: `*-token`, `*-secret`, `*api-key*`, `*password*`, `*session*`. */
const CREDENTIAL_PATTERN = /(^|-)(api-?key|apikey|secret|password|passwd|token|session|credentials?|private-key)($|-)/;

const EXACT_KIND = new Map<string, RestrictedKind>();
for (const [kind, names] of Object.entries(EXACT) as [RestrictedKind, readonly string[]][]) for (const n of names) EXACT_KIND.set(n, kind);

/** The restriction a header name falls under, or null when it may be forwarded. */
export function restrictedKind(name: string): RestrictedKind | null {
  const n = name.toLowerCase();
  const exact = EXACT_KIND.get(n);
  if (exact) return exact;
  for (const [kind, prefixes] of Object.entries(PREFIXES) as [RestrictedKind, readonly string[]][]) {
    if (prefixes.some((p) => n.startsWith(p))) return kind;
  }
  if (CREDENTIAL_PATTERN.test(n)) return 'credential';
  return null;
}

const KIND_TEXT: Record<RestrictedKind, string> = {
  credential: 'a credential header',
  cloud_metadata: 'a cloud-metadata header',
  internal_routing: 'an internal routing header',
  hop_by_hop: 'a hop-by-hop header',
};

/** Why `name` may not be forwarded, or null when it may. */
export function forwardHeaderIssue(name: string): string | null {
  if (name.length === 0) return 'is empty';
  if (name.length > MAX_HEADER_NAME_LENGTH) return `is longer than ${MAX_HEADER_NAME_LENGTH} characters`;
  if (!HEADER_NAME.test(name)) return `"${name}" is not a valid header name`;
  const kind = restrictedKind(name);
  return kind ? `"${name}" is ${KIND_TEXT[kind]} and is never forwarded` : null;
}

export const isValidHeaderName = (name: string): boolean => name.length > 0 && name.length <= MAX_HEADER_NAME_LENGTH && HEADER_NAME.test(name);

/** `forwardHeaders`: header names of the incoming request, each allowed; duplicates (any case) refused. */
export const forwardHeadersSchema = z
  .array(z.string())
  .max(MAX_FORWARD_HEADERS)
  .superRefine((names, ctx) => {
    const seen = new Set<string>();
    names.forEach((name, i) => {
      const issue = forwardHeaderIssue(name);
      if (issue) ctx.addIssue({ code: 'custom', path: [i], message: issue });
      else if (seen.has(name.toLowerCase())) ctx.addIssue({ code: 'custom', path: [i], message: `"${name}" is listed twice` });
      seen.add(name.toLowerCase());
    });
  });

/** Static headers a check sends to its endpoint (`headers`): valid names, string values, no hop-by-hop ones. */
export const staticHeadersSchema = z.record(z.string(), z.string().max(8192)).superRefine((headers, ctx) => {
  for (const name of Object.keys(headers)) {
    if (!isValidHeaderName(name)) ctx.addIssue({ code: 'custom', path: [name], message: `"${name}" is not a valid header name` });
    else if (restrictedKind(name) === 'hop_by_hop' || name.toLowerCase() === 'host') ctx.addIssue({ code: 'custom', path: [name], message: `"${name}" is set by the gateway` });
  }
});
