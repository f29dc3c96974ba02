// What a stored log keeps (issue 9, item 1): bodies capped in size, the values of headers named
// by `x-gateway-sensitive-headers` (and credentials, always) hashed, and the workspace's denied
// fields removed.
import { createHash } from 'node:crypto';
import { ALWAYS_SENSITIVE, SENSITIVE_HEADERS_HEADER, sensitiveHeaderNames } from '../../domain/log-fields.ts';

/** Default cap on each stored body; longer ones are cut and flagged `bodies_truncated`. */
export const DEFAULT_LOG_BODY_MAX_BYTES = 64 * 1024;

const hashValue = (v: string): string => `sha256:${createHash('sha256').update(v).digest('hex')}`;

/**
 * Headers as a log keeps them: names lower-cased; the values of sensitive ones replaced by their
 * SHA-256 (equal values still compare equal) — those the request names in
 * `x-gateway-sensitive-headers` (case-insensitive, gateway-spec "Request headers"), those in
 * `extraSensitive`, and credentials always.
 */
export function sanitizeHeaders(headers: unknown, extraSensitive: string[] = []): Record<string, string> | null {
  if (!headers || typeof headers !== 'object' || Array.isArray(headers)) return null;
  const lower: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers as Record<string, unknown>)) {
    if (v === undefined || v === null) continue;
    lower[k.toLowerCase()] = Array.isArray(v) ? v.map(String).join(', ') : typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
  const sensitive = new Set([...ALWAYS_SENSITIVE, ...sensitiveHeaderNames(lower[SENSITIVE_HEADERS_HEADER]), ...extraSensitive.map((s) => s.toLowerCase())]);
  for (const name of Object.keys(lower)) if (sensitive.has(name)) lower[name] = hashValue(lower[name]!);
  return lower;
}

/** A body as stored: JSON text cut to `maxBytes` of UTF-8, never splitting a character. */
export function capBody(body: unknown, maxBytes = DEFAULT_LOG_BODY_MAX_BYTES): { text: string | null; truncated: boolean } {
  if (body === undefined || body === null || body === '') return { text: null, truncated: false };
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return { text, truncated: false };
  let cut = bytes.subarray(0, maxBytes).toString('utf8');
  while (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
  return { text: cut, truncated: true };
}
