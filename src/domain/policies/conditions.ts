// Policy conditions and group-by keys (control-plane-schemas 1.5 "Policy Condition", 2.11, 2.12;
// gateway-spec "Policies" and "Limits"). Pure: the control plane validates with these schemas and
// the workers (issue 8) match requests with policyApplies / valueKeyOf.
//
// A condition `{key, value}` matches when the request's fact for `key` equals `value`; `value` may be
// a list (any of them) and `*` matches any present value. All conditions of a policy must match.
import { z } from 'zod';

export const POLICY_TARGETS = ['llm', 'mcp_tools'] as const;
export type PolicyTarget = (typeof POLICY_TARGETS)[number];

/** Which policy a set of conditions belongs to: keys are validated against it. */
export type PolicyKind = { kind: 'rate_limit'; target: PolicyTarget } | { kind: 'usage_limit' };

/** Keys every policy accepts (control-plane-schemas 1.5). */
export const BASE_KEYS = ['api_key', 'organisation_id', 'workspace_id'] as const;
/**
 * Extra keys of rate-limit policies with target `mcp_tools` (gateway-spec, Limits: they limit MCP
 * tool calls). The spec does not name them; these are the two facts an MCP tool call has that an
 * LLM call does not: the MCP server (id or slug) and the tool name.
 */
export const MCP_KEYS = ['mcp_server', 'mcp_tool'] as const;
/**
 * Extra keys of LLM policies (issue 8 item 2: "by ... model, provider"): the model the request
 * names and the provider it is sent to (the adapter id, e.g. `openai`, also for a managed `@slug`).
 */
export const LLM_KEYS = ['model', 'provider'] as const;
const METADATA = /^metadata\.[^\s.][^\s]{0,254}$/;
export const WILDCARD = '*';

export function allowedKeys(kind: PolicyKind): readonly string[] {
  return kind.kind === 'rate_limit' && kind.target === 'mcp_tools' ? [...BASE_KEYS, ...MCP_KEYS] : [...BASE_KEYS, ...LLM_KEYS];
}

export function isAllowedKey(kind: PolicyKind, key: string): boolean {
  return allowedKeys(kind).includes(key) || METADATA.test(key);
}

export interface PolicyCondition {
  key: string;
  /** One value, several (any of them), or `*` (any present value). */
  value: string | string[];
}

export interface PolicyGroupBy {
  key: string;
}

const keyMessage = (kind: PolicyKind) => `key must be one of ${allowedKeys(kind).join(', ')} or metadata.<field>`;

const valueSchema = z.union([z.string().min(1).max(1024), z.array(z.string().min(1).max(1024)).min(1).max(100)]);

/** `conditions`: ≥1 items, keys valid for the policy, each key at most once (they are ANDed). */
export function conditionsSchema(kind: PolicyKind) {
  return z
    .array(
      z.strictObject({
        key: z.string().refine((k) => isAllowedKey(kind, k), { message: keyMessage(kind) }),
        value: valueSchema,
      }),
    )
    .min(1)
    .max(50)
    .superRefine((items, ctx) => {
      const seen = new Set<string>();
      items.forEach((c, i) => {
        if (seen.has(c.key)) ctx.addIssue({ code: 'custom', path: [i, 'key'], message: `duplicate condition key ${c.key}` });
        seen.add(c.key);
      });
    });
}

/** `group_by`: ≥1 distinct keys, valid for the policy. */
export function groupBySchema(kind: PolicyKind) {
  return z
    .array(z.strictObject({ key: z.string().refine((k) => isAllowedKey(kind, k), { message: keyMessage(kind) }) }))
    .min(1)
    .max(10)
    .superRefine((items, ctx) => {
      const seen = new Set<string>();
      items.forEach((g, i) => {
        if (seen.has(g.key)) ctx.addIssue({ code: 'custom', path: [i, 'key'], message: `duplicate group_by key ${g.key}` });
        seen.add(g.key);
      });
    });
}

/** What a worker knows about one request, named like the condition keys. */
export interface RequestFacts {
  /** The API key's id (policies name keys by id, never by secret). */
  api_key?: string | null;
  organisation_id?: string | null;
  /** Id; the slug too when known (a condition may name either). */
  workspace_id?: string | null;
  workspace_slug?: string | null;
  /** The request's metadata (`x-gateway-metadata`), flat string values. */
  metadata?: Record<string, string | number | boolean | null | undefined> | null;
  mcp_server?: string | null;
  mcp_tool?: string | null;
  /** LLM requests: the model named in the body, and the provider (adapter id) when known before routing. */
  model?: string | null;
  provider?: string | null;
}

/** The facts a key stands for (several for workspace_id: its id and slug). */
export function factsFor(key: string, facts: RequestFacts): string[] {
  let values: (string | null | undefined)[];
  if (key.startsWith('metadata.')) {
    const v = facts.metadata?.[key.slice('metadata.'.length)];
    values = [v === null || v === undefined ? null : String(v)];
  } else if (key === 'workspace_id') {
    values = [facts.workspace_id, facts.workspace_slug];
  } else if (key === 'api_key' || key === 'organisation_id' || key === 'mcp_server' || key === 'mcp_tool' || key === 'model' || key === 'provider') {
    values = [facts[key]];
  } else {
    values = [];
  }
  return values.filter((v): v is string => typeof v === 'string' && v !== '');
}

function conditionMatches(c: PolicyCondition, facts: RequestFacts): boolean {
  const present = factsFor(c.key, facts);
  if (!present.length) return false;
  const wanted = Array.isArray(c.value) ? c.value : [c.value];
  return wanted.some((w) => w === WILDCARD || present.includes(w));
}

/** Does a policy with these conditions apply to this request? All must match; none is never "all". */
export function policyApplies(conditions: readonly PolicyCondition[], facts: RequestFacts): boolean {
  return conditions.length > 0 && conditions.every((c) => conditionMatches(c, facts));
}

/**
 * The counter a request lands in (`value_key`, control-plane-schemas 2.12, e.g.
 * `metadata._user:alice`; several keys joined by `|` in group_by order), or null when the request
 * lacks one of the group-by facts (then the policy cannot count it and does not apply).
 */
export function valueKeyOf(groupBy: readonly PolicyGroupBy[], facts: RequestFacts): string | null {
  const parts: string[] = [];
  for (const g of groupBy) {
    const [v] = factsFor(g.key, facts);
    if (v === undefined) return null;
    parts.push(`${g.key}:${v}`);
  }
  return parts.length ? parts.join('|') : null;
}

/**
 * A policy lives in one workspace (control-plane-schemas 2.11: `workspace_id` required) and governs
 * that workspace's requests only; within it, its conditions decide.
 */
export function policyMatchesRequest(policy: { workspace_id: string; conditions: readonly PolicyCondition[] }, facts: RequestFacts): boolean {
  return facts.workspace_id === policy.workspace_id && policyApplies(policy.conditions, facts);
}
