// MCP integration credentials (control-plane-schemas 2.18: `configurations.custom_headers`, OAuth
// settings) are sealed at rest and masked in every answer (common brief: "Mask secrets in every
// answer"). `passthrough_header` maps header names, not values: never masked.

const SECRET_KEY = /secret|token|password|passwd|api[_-]?key|authorization|credential|private/i;
const MASK = '********';

/** How a secret is shown: never more than its last 4 characters, and only when it is long. */
export const maskValue = (v: string): string => (v.length >= 16 ? `${MASK}${v.slice(-4)}` : MASK);

type Json = Record<string, unknown>;

function walk(conf: Json, fn: (path: string[], value: string) => string, path: string[] = []): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(conf)) {
    const here = [...path, k];
    if (path.length === 0 && k === 'passthrough_header') out[k] = v;
    else if (typeof v === 'string' && (SECRET_KEY.test(k) || (path.length === 1 && path[0] === 'custom_headers'))) out[k] = fn(here, v);
    else if (v && typeof v === 'object' && !Array.isArray(v)) out[k] = walk(v as Json, fn, here);
    else out[k] = v;
  }
  return out;
}

/** The configurations as answers show them: custom header values and secret-named keys masked. */
export const maskConfigurations = (conf: Json): Json => walk(conf, (_, v) => maskValue(v));

function at(conf: Json | null, path: string[]): unknown {
  let cur: unknown = conf;
  for (const p of path) cur = cur && typeof cur === 'object' ? (cur as Json)[p] : undefined;
  return cur;
}

/**
 * New configurations from an update: a secret sent back exactly as it was shown (its mask)
 * keeps the stored value, so a read-modify-write does not overwrite credentials with masks.
 */
export const keepMaskedSecrets = (next: Json, previous: Json | null): Json =>
  walk(next, (path, v) => {
    const old = at(previous, path);
    return typeof old === 'string' && v === maskValue(old) ? old : v;
  });

/** The sealing context: a sealed value cannot be moved to another row. */
export const integrationSecretContext = (id: string): string => `mcp_integration:${id}`;
