import { errorResponse, invalidParameter } from '../domain/errors.ts';

/** A non-negative integer query parameter, absent, or the 400 naming it. */
export function intParam(q: URLSearchParams, name: string): number | undefined | Response {
  const raw = q.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^\d+$/.test(raw)) return errorResponse(invalidParameter(name, `${name} must be a non-negative integer`));
  return Number(raw);
}

/** A comma-separated list parameter (`ids=a,b`), trimmed, empty parts dropped. */
export function listParam(q: URLSearchParams, name: string): string[] | undefined {
  const raw = q.get(name);
  if (raw === null || raw === '') return undefined;
  return raw.split(',').map((s) => s.trim()).filter(Boolean);
}
