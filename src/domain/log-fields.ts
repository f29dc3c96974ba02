// Request-log fields as the spec names them for exports (control-plane-schemas 2.14,
// `requested_data`), the workspace's denied fields (gateway-spec, Errors: "denied fields in log
// export create or update"), and how a log names its sensitive headers and user.

export const LOG_EXPORT_FIELDS = [
  'id', 'trace_id', 'created_at', 'request', 'response', 'is_success', 'ai_org', 'ai_model', 'req_units', 'res_units',
  'total_units', 'request_url', 'cost', 'cost_currency', 'response_time', 'response_status_code', 'mode', 'config',
  'prompt_slug', 'metadata',
] as const;
export type LogExportField = (typeof LOG_EXPORT_FIELDS)[number];

/** Denied fields that also keep content out of stored logs (the rest are only kept out of exports). */
export const STORED_DENIABLE = ['request', 'response', 'metadata'] as const;

/** Headers whose values never reach a log in clear, whatever the caller says. */
export const ALWAYS_SENSITIVE = ['authorization', 'x-gateway-api-key', 'proxy-authorization', 'cookie', 'set-cookie', 'api-key', 'x-api-key'];

export const SENSITIVE_HEADERS_HEADER = 'x-gateway-sensitive-headers';

/** The header names a request marks sensitive: a JSON array or a comma-separated list, case-insensitive. */
export function sensitiveHeaderNames(value: string | undefined | null): string[] {
  if (!value) return [];
  let names: unknown;
  try {
    names = JSON.parse(value);
  } catch {
    names = value.split(',');
  }
  if (typeof names === 'string') names = [names];
  if (!Array.isArray(names)) return [];
  return names.filter((n): n is string => typeof n === 'string').map((n) => n.trim().toLowerCase()).filter(Boolean);
}

/** A stored body back as JSON when it parses, else the (possibly cut) text. */
export function readBody(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The `_user` metadata value (spec: metadata "special type `_user` associates a user"). */
export function userOf(metadata: Record<string, unknown> | null | undefined): string | null {
  const u = metadata?._user;
  if (typeof u === 'string' && u) return u.slice(0, 255);
  return typeof u === 'number' ? String(u) : null;
}
