import type { ConfigNode, NodeSettings } from '../../src/domain/config/config-schema.ts';

const INHERITED = [
  'retry',
  'cache',
  'request_timeout',
  'input_guardrails',
  'output_guardrails',
  'override_params',
  'default_params',
  'drop_params',
  'forward_headers',
  'custom_host',
  'strict_open_ai_compliance',
] as const satisfies readonly (keyof NodeSettings)[];

/** Settings flow down the tree and the child wins; parameter maps merge key by key (issue 7 item 2). */
export function inherit(parent: NodeSettings, node: ConfigNode): NodeSettings {
  const out: NodeSettings = { ...parent };
  for (const k of INHERITED) {
    const v = node[k];
    if (v === undefined) continue;
    if ((k === 'override_params' || k === 'default_params') && parent[k]) out[k] = { ...parent[k], ...(v as Record<string, unknown>) };
    else (out as Record<string, unknown>)[k] = v;
  }
  return out;
}

/** A target's params applied to the caller's body: defaults fill gaps, overrides win, drops go. */
export function applyParams(body: Record<string, unknown>, s: NodeSettings): Record<string, unknown> {
  if (!s.default_params && !s.override_params && !s.drop_params) return body;
  const out: Record<string, unknown> = { ...s.default_params, ...body, ...s.override_params };
  for (const p of s.drop_params ?? []) delete out[p];
  return out;
}
