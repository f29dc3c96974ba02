// Narrowing helpers for untyped JSON (caller and provider bodies), shared by the adapters.
export type Json = Record<string, unknown>;

export const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
export const obj = (v: unknown): Json => (isObj(v) ? v : {});
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Copies the fields that are set (not undefined) into `target`. */
export function assignDefined(target: Json, fields: Json): Json {
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) target[k] = v;
  return target;
}
