import type { KeyHasher } from '../contracts.ts';

/**
 * The caller's forwarded headers as they may appear in logs: values of the names listed in
 * x-gateway-sensitive-headers (case-insensitive) are replaced by their SHA-256 (spec: Request
 * headers). Listing a header there forwards nothing by itself.
 */
export async function headersForLog(incoming: Headers, names: readonly string[], sensitive: readonly string[], hash: KeyHasher): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const hidden = new Set(sensitive.map((n) => n.toLowerCase()));
  for (const name of names) {
    const lower = name.toLowerCase();
    const v = incoming.get(lower);
    if (v === null) continue;
    out[lower] = hidden.has(lower) || hidden.has('*') ? `sha256:${await hash(v)}` : v;
  }
  return out;
}
