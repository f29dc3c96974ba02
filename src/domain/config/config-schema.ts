// The gateway "config" (routing configuration): one schema for the control plane (saved configs) and
// the workers (inline `x-gateway-config`). Field names follow the reference gateway
// (../shared/spec/reference-gateway-behaviour.md §2); its weaknesses are fixed here: retry attempts are
// capped at 5, `max_age` is seconds, conditional queries are checked before a request ever runs.
// Pure: zod only. The SSRF check on `custom_host` and the existence of guardrail slugs are checked
// elsewhere (shape only here; see collectGuardrailRefs for the save-time check).
import { z } from 'zod';
import { invalidParameter } from '../errors.ts';
import { parseWith } from '../validation.ts';
import { queryIssues, type ConditionalQuery } from './conditional-query.ts';

export type { ConditionalQuery } from './conditional-query.ts';

export const STRATEGY_MODES = ['single', 'fallback', 'loadbalance', 'conditional'] as const;
export const CACHE_MODES = ['simple', 'semantic'] as const;
export const MAX_RETRY_ATTEMPTS = 5;
export const DEFAULT_RETRY_STATUS_CODES = [429, 500, 502, 503, 504] as const;
export const CONFIG_HEADER = 'x-gateway-config';

export type StrategyMode = (typeof STRATEGY_MODES)[number];

export interface Condition {
  query: ConditionalQuery;
  then: string;
}
export interface Sticky {
  hash_fields: string[];
  /** Seconds. */
  ttl: number;
}
export interface Strategy {
  mode: StrategyMode;
  on_status_codes?: number[];
  conditions?: Condition[];
  default?: string;
  sticky?: Sticky;
}
export interface RetrySettings {
  attempts: number;
  on_status_codes?: number[];
  use_retry_after_header?: boolean;
}
export interface CacheSettings {
  mode: (typeof CACHE_MODES)[number];
  /** Seconds. */
  max_age?: number;
}
/** Shorthand guardrail: check ids (`plugin.fn`, or `fn` for `default.fn`) mapped to their parameters, plus hook-level keys. */
export interface InlineGuardrail {
  id?: string;
  type?: 'guardrail' | 'mutator';
  deny?: boolean;
  async?: boolean;
  sequential?: boolean;
  on_fail?: Record<string, unknown>;
  on_success?: Record<string, unknown>;
  [checkId: string]: unknown;
}
/** A saved guardrail's slug or id, or an inline guardrail. */
export type GuardrailEntry = string | InlineGuardrail;

/** Settings any node may carry; they are inherited down the tree (child wins). */
export interface NodeSettings {
  retry?: RetrySettings;
  cache?: CacheSettings;
  /** Milliseconds. */
  request_timeout?: number;
  input_guardrails?: GuardrailEntry[];
  output_guardrails?: GuardrailEntry[];
  override_params?: Record<string, unknown>;
  default_params?: Record<string, unknown>;
  drop_params?: string[];
  forward_headers?: string[];
  custom_host?: string;
  strict_open_ai_compliance?: boolean;
}
/** Provider selection and provider-specific settings of a leaf. */
export interface ProviderFields {
  /** A provider name (`openai`) or a saved provider `@slug`. */
  provider?: string;
  /** Legacy saved provider (virtual key) slug. */
  virtual_key?: string;
  api_key?: string;
  [providerSpecific: `${string}_${string}`]: unknown;
}
export interface ConfigNode extends NodeSettings, ProviderFields {
  strategy?: Strategy;
  targets?: ConfigTarget[];
}
export interface ConfigTarget extends ConfigNode {
  name?: string;
  /** Loadbalance weight; a missing weight counts as 1, 0 is never chosen. */
  weight?: number;
}
export interface GatewayConfig extends ConfigNode {
  fetch_integrated_models?: boolean;
}

// ── pieces ────────────────────────────────────────────────────────────────────

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const CHECK_ID = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)?$/;

const statusCodes = z.array(z.number().int().min(100).max(599));
const nonEmptyString = z.string().min(1).max(255);
const params = z.record(z.string(), z.unknown());

export const retrySchema = z.strictObject({
  attempts: z.number().int().min(0).max(MAX_RETRY_ATTEMPTS, `must be at most ${MAX_RETRY_ATTEMPTS}`),
  on_status_codes: statusCodes.optional(),
  use_retry_after_header: z.boolean().optional(),
});

export const cacheSchema = z.strictObject({
  mode: z.enum(CACHE_MODES),
  max_age: z.number().int().min(1).optional(),
});

export const customHostSchema = z.string().superRefine((value, ctx) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be an absolute http(s) URL' });
    return;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') ctx.addIssue({ code: 'custom', message: 'must use http or https' });
  else if (value.includes('#')) ctx.addIssue({ code: 'custom', message: 'must not carry a fragment' });
  else if (url.username || url.password) ctx.addIssue({ code: 'custom', message: 'must not carry credentials' });
});

export const headerNameSchema = z.string().regex(HEADER_NAME, 'is not a valid header name');

const HOOK_KEYS: Record<string, z.ZodType> = {
  id: nonEmptyString,
  type: z.enum(['guardrail', 'mutator']),
  deny: z.boolean(),
  async: z.boolean(),
  sequential: z.boolean(),
  on_fail: params,
  on_success: params,
};

export const inlineGuardrailSchema = z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
  let checks = 0;
  for (const [key, v] of Object.entries(value)) {
    const hookKey = HOOK_KEYS[key];
    if (hookKey) {
      const r = hookKey.safeParse(v);
      if (!r.success) ctx.addIssue({ code: 'custom', path: [key, ...r.error.issues[0]!.path], message: r.error.issues[0]!.message });
      continue;
    }
    if (!CHECK_ID.test(key)) {
      ctx.addIssue({ code: 'custom', path: [key], message: 'is not a check id (plugin.function) nor a guardrail setting' });
      continue;
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      ctx.addIssue({ code: 'custom', path: [key], message: 'check parameters must be an object' });
      continue;
    }
    checks++;
  }
  if (checks === 0) ctx.addIssue({ code: 'custom', message: 'an inline guardrail needs at least one check' });
});

export const guardrailEntrySchema = z.union([nonEmptyString, inlineGuardrailSchema]);

const conditionSchema = z.strictObject({
  query: z.record(z.string(), z.unknown()).superRefine((query, ctx) => {
    for (const issue of queryIssues(query)) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  }),
  then: nonEmptyString,
});

export const strategySchema = z
  .strictObject({
    mode: z.enum(STRATEGY_MODES),
    on_status_codes: statusCodes.min(1).optional(),
    conditions: z.array(conditionSchema).optional(),
    default: nonEmptyString.optional(),
    sticky: z
      .strictObject({
        hash_fields: z.array(z.string().min(1)).min(1),
        ttl: z.number().int().min(1),
      })
      .optional(),
  })
  .superRefine((s, ctx) => {
    if (s.on_status_codes !== undefined && s.mode !== 'fallback') {
      ctx.addIssue({ code: 'custom', path: ['on_status_codes'], message: 'only applies to mode fallback' });
    }
    if (s.sticky !== undefined && s.mode !== 'loadbalance') {
      ctx.addIssue({ code: 'custom', path: ['sticky'], message: 'only applies to mode loadbalance' });
    }
    if (s.mode === 'conditional') {
      if (!s.conditions || s.conditions.length === 0) {
        ctx.addIssue({ code: 'custom', path: ['conditions'], message: 'mode conditional needs a non-empty conditions list' });
      }
    } else {
      if (s.conditions !== undefined) ctx.addIssue({ code: 'custom', path: ['conditions'], message: 'only applies to mode conditional' });
      if (s.default !== undefined) ctx.addIssue({ code: 'custom', path: ['default'], message: 'only applies to mode conditional' });
    }
  });

/** Provider-specific leaf keys the reference gateway accepts (credentials and deployment details). */
const PROVIDER_SPECIFIC = {
  vertex_project_id: z.string(),
  vertex_region: z.string(),
  vertex_service_account_json: z.union([z.string(), params]),
  aws_access_key_id: z.string(),
  aws_secret_access_key: z.string(),
  aws_session_token: z.string(),
  aws_region: z.string(),
  aws_role_arn: z.string(),
  aws_auth_type: z.string(),
  aws_external_id: z.string(),
  openai_project: z.string(),
  openai_organization: z.string(),
  azure_model_name: z.string(),
  azure_auth_mode: z.string(),
  azure_api_version: z.string(),
  azure_deployment_id: z.string(),
  azure_resource_name: z.string(),
  resource_name: z.string(),
  deployment_id: z.string(),
  api_version: z.string(),
  anthropic_version: z.string(),
  anthropic_beta: z.string(),
};

const settingsShape = {
  retry: retrySchema.optional(),
  cache: cacheSchema.optional(),
  request_timeout: z.number().int().min(1).optional(),
  input_guardrails: z.array(guardrailEntrySchema).optional(),
  output_guardrails: z.array(guardrailEntrySchema).optional(),
  override_params: params.optional(),
  default_params: params.optional(),
  drop_params: z.array(z.string().min(1)).optional(),
  forward_headers: z.array(headerNameSchema).optional(),
  custom_host: customHostSchema.optional(),
  strict_open_ai_compliance: z.boolean().optional(),
};

const leafShape = {
  provider: nonEmptyString.optional(),
  virtual_key: nonEmptyString.optional(),
  api_key: z.string().min(1).optional(),
  ...Object.fromEntries(Object.entries(PROVIDER_SPECIFIC).map(([k, s]) => [k, s.optional()])),
} as Record<string, z.ZodType>;

type Ctx = z.core.$RefinementCtx<ConfigNode>;

function checkNode(node: ConfigNode, ctx: Ctx, isTarget: boolean): void {
  const hasStrategy = node.strategy !== undefined;
  const targets = node.targets;
  const isLeaf = node.provider !== undefined || node.virtual_key !== undefined;
  if (hasStrategy && targets === undefined) {
    ctx.addIssue({ code: 'custom', path: ['targets'], message: 'a strategy needs targets' });
    return;
  }
  if (!hasStrategy && targets !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['strategy'], message: 'targets need a strategy' });
    return;
  }
  if (hasStrategy) {
    for (const key of ['provider', 'virtual_key', 'api_key'] as const) {
      if (node[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: 'a node with a strategy routes to its targets; set this on a target' });
    }
  } else if (isTarget && !isLeaf) {
    ctx.addIssue({ code: 'custom', message: 'a target needs provider, virtual_key, or strategy and targets' });
    return;
  }
  if (!hasStrategy || !targets) return;
  const strategy = node.strategy!;
  if (strategy.mode === 'single' && targets.length !== 1) {
    ctx.addIssue({ code: 'custom', path: ['targets'], message: 'mode single takes exactly one target' });
  } else if (targets.length === 0) {
    ctx.addIssue({ code: 'custom', path: ['targets'], message: `mode ${strategy.mode} needs at least one target` });
  }
  const names = new Set<string>();
  targets.forEach((t, i) => {
    if (t.name === undefined) return;
    if (names.has(t.name)) ctx.addIssue({ code: 'custom', path: ['targets', i, 'name'], message: `duplicate target name ${t.name}` });
    names.add(t.name);
  });
  if (strategy.mode === 'conditional') {
    strategy.conditions?.forEach((c, i) => {
      if (!names.has(c.then)) ctx.addIssue({ code: 'custom', path: ['strategy', 'conditions', i, 'then'], message: `no target named ${c.then} at this level` });
    });
    if (strategy.default !== undefined && !names.has(strategy.default)) {
      ctx.addIssue({ code: 'custom', path: ['strategy', 'default'], message: `no target named ${strategy.default} at this level` });
    }
  }
  if (strategy.mode === 'loadbalance' && targets.length > 0 && !targets.some((t) => (t.weight ?? 1) > 0)) {
    ctx.addIssue({ code: 'custom', path: ['targets'], message: 'mode loadbalance needs at least one target with weight > 0' });
  }
}

export const configTargetSchema: z.ZodType<ConfigTarget> = z.lazy(() =>
  z
    .strictObject({
      name: nonEmptyString.optional(),
      weight: z.number().min(0).optional(),
      strategy: strategySchema.optional(),
      targets: z.array(configTargetSchema).optional(),
      ...settingsShape,
      ...leafShape,
    })
    .superRefine((node, ctx) => checkNode(node as ConfigTarget, ctx as Ctx, true)),
) as z.ZodType<ConfigTarget>;

export const gatewayConfigSchema: z.ZodType<GatewayConfig> = z
  .strictObject({
    strategy: strategySchema.optional(),
    targets: z.array(configTargetSchema).optional(),
    fetch_integrated_models: z.boolean().optional(),
    ...settingsShape,
    ...leafShape,
  })
  .superRefine((node, ctx) => checkNode(node as GatewayConfig, ctx as Ctx, false)) as z.ZodType<GatewayConfig>;

// ── entry points ──────────────────────────────────────────────────────────────

/** Validates a config; a 400 names the offending field (`targets[0].retry.attempts`), after `prefix` if given. */
export function parseGatewayConfig(input: unknown, prefix = ''): GatewayConfig {
  return parseWith(gatewayConfigSchema, input, prefix);
}

/** True when a header value is inline JSON; otherwise the caller treats it as a saved config's id or slug. */
export function looksLikeInlineConfig(value: string): boolean {
  return value.trim().startsWith('{');
}

/** Parses and validates an inline `x-gateway-config` header value. */
export function configFromHeader(value: string): GatewayConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw invalidParameter(CONFIG_HEADER, `${CONFIG_HEADER}: not valid JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalidParameter(CONFIG_HEADER, `${CONFIG_HEADER}: must be a JSON object`);
  }
  return parseGatewayConfig(parsed);
}

/** Every saved guardrail slug or id referenced anywhere in the tree, once each, in order of appearance. */
export function collectGuardrailRefs(config: ConfigNode): string[] {
  const refs = new Set<string>();
  const walk = (node: ConfigNode): void => {
    for (const list of [node.input_guardrails, node.output_guardrails]) {
      for (const entry of list ?? []) if (typeof entry === 'string') refs.add(entry);
    }
    for (const t of node.targets ?? []) walk(t);
  };
  walk(config);
  return [...refs];
}
