// Runs guardrail hooks (issue 7 item 6). Better than the reference: async hooks really run (in
// the background, logged, never blocking), erroring checks can fail closed, and a hook's checks
// run in parallel or, with `sequential`, one after another seeing each other's rewrites.
import type { GuardrailEntry } from '../../src/domain/config/config-schema.ts';
import { findCheck, fullCheckId } from './registry.ts';
import type { CheckContext, CheckDeps, CheckResult, Hook, HookCheck, HookResult } from './types.ts';

const HOOK_KEYS = new Set(['id', 'type', 'deny', 'async', 'sequential', 'on_fail', 'on_success', 'name']);

/** A config's shorthand guardrail (check ids mapped to parameters, plus hook keys) as a hook. */
export function hookFromShorthand(entry: Record<string, unknown>, fallbackId: string): Hook {
  const checks: HookCheck[] = Object.entries(entry)
    .filter(([k]) => !HOOK_KEYS.has(k))
    .map(([id, parameters]) => ({ id: fullCheckId(id), parameters: parameters && typeof parameters === 'object' ? (parameters as Record<string, unknown>) : {} }));
  return {
    id: typeof entry.id === 'string' ? entry.id : fallbackId,
    type: entry.type === 'mutator' ? 'mutator' : 'guardrail',
    checks,
    deny: entry.deny === true,
    async: entry.async === true,
    sequential: entry.sequential === true,
    ...(entry.on_fail && typeof entry.on_fail === 'object' ? { on_fail: entry.on_fail as Record<string, unknown> } : {}),
    ...(entry.on_success && typeof entry.on_success === 'object' ? { on_success: entry.on_success as Record<string, unknown> } : {}),
  };
}

/** Config entries to hooks; saved guardrails (slugs or ids) come from `lookup` (resolved from the control plane). */
export async function hooksFrom(entries: GuardrailEntry[] | undefined, prefix: string, lookup: (ref: string) => Promise<Hook | null>): Promise<Hook[]> {
  const out: Hook[] = [];
  for (const [i, e] of (entries ?? []).entries()) {
    if (typeof e === 'string') {
      const hook = await lookup(e);
      if (hook) out.push(hook);
      else throw new Error(`guardrail ${e} not found`);
    } else {
      out.push(hookFromShorthand(e as Record<string, unknown>, `${prefix}_${i}`));
    }
  }
  return out;
}

export interface HookRun {
  results: HookResult[];
  /** A failing hook with deny: the request is refused (446). */
  denied: boolean;
  /** A failing hook without deny: the answer goes back with 246. */
  failed: boolean;
  /** Rewritten by mutators (present only when something changed). */
  request?: Record<string, unknown>;
  response?: unknown;
  /** Async hooks, still running; their results only go to the log. */
  background: Promise<HookResult[]>;
}

export interface RunOptions {
  /** Erroring checks fail the hook (fail closed) unless a check says otherwise. */
  failOnError: boolean;
}

async function runCheck(check: HookCheck, ctx: CheckContext, deps: CheckDeps, opts: RunOptions): Promise<{ result: CheckResult; transformed?: { request?: Record<string, unknown>; response?: unknown } }> {
  const started = deps.now();
  const failOnError = typeof check.parameters.failOnError === 'boolean' ? check.parameters.failOnError : opts.failOnError;
  const base = { id: check.id, created_at: new Date(started).toISOString(), fail_on_error: failOnError };
  const fn = findCheck(check.id);
  try {
    if (!fn) throw new Error(`unknown check ${check.id}`);
    const out = await fn(ctx, check.parameters, deps);
    const t = out.transformedData;
    return {
      result: { ...base, verdict: out.verdict, data: out.data ?? null, transformed: !!t, execution_time: deps.now() - started },
      ...(t ? { transformed: { ...(t.request ? { request: t.request.json } : {}), ...(t.response ? { response: t.response.json } : {}) } } : {}),
    };
  } catch (err) {
    const e = err as Error;
    return { result: { ...base, verdict: !failOnError, data: null, error: { name: e.name, message: e.message }, transformed: false, execution_time: deps.now() - started } };
  }
}

async function runHook(hook: Hook, ctx: CheckContext, deps: CheckDeps, opts: RunOptions): Promise<{ result: HookResult; ctx: CheckContext }> {
  const started = deps.now();
  const checks = hook.checks.filter((c) => c.is_enabled !== false);
  const results: CheckResult[] = [];
  let current = ctx;
  const apply = (t?: { request?: Record<string, unknown>; response?: unknown }) => {
    if (!t) return;
    if (t.request) current = { ...current, request: { ...current.request, json: t.request } };
    if (t.response !== undefined && current.response) current = { ...current, response: { ...current.response, json: t.response, text: undefined } };
  };
  if (hook.sequential) {
    for (const c of checks) {
      const r = await runCheck(c, current, deps, opts);
      results.push(r.result);
      apply(r.transformed);
    }
  } else {
    const all = await Promise.all(checks.map((c) => runCheck(c, ctx, deps, opts)));
    for (const r of all) {
      results.push(r.result);
      apply(r.transformed);
    }
  }
  const verdict = results.every((r) => r.verdict);
  const feedbackSpec = (verdict ? hook.on_success : hook.on_fail)?.feedback as { value?: number; weight?: number } | undefined;
  return {
    ctx: current,
    result: {
      verdict,
      id: hook.id,
      transformed: results.some((r) => r.transformed),
      checks: results,
      feedback: feedbackSpec
        ? {
            value: feedbackSpec.value ?? (verdict ? 5 : -5),
            weight: feedbackSpec.weight ?? 1,
            metadata: {
              successfulChecks: results.filter((r) => r.verdict && !r.error).map((r) => r.id).join(', '),
              failedChecks: results.filter((r) => !r.verdict && !r.error).map((r) => r.id).join(', '),
              erroredChecks: results.filter((r) => r.error).map((r) => r.id).join(', '),
            },
          }
        : null,
      execution_time: deps.now() - started,
      async: hook.async,
      type: hook.type,
      created_at: new Date(started).toISOString(),
      deny: hook.deny,
    },
  };
}

/** Runs the blocking hooks in order (each sees the previous hooks' rewrites) and starts the async ones. */
export async function runHooks(hooks: Hook[], ctx: CheckContext, deps: CheckDeps, opts: RunOptions): Promise<HookRun> {
  const blocking = hooks.filter((h) => !h.async);
  const background = Promise.all(hooks.filter((h) => h.async).map((h) => runHook(h, ctx, deps, opts).then((r) => r.result)));
  background.catch(() => {});
  const results: HookResult[] = [];
  let current = ctx;
  for (const h of blocking) {
    const r = await runHook(h, current, deps, opts);
    results.push(r.result);
    current = r.ctx;
  }
  const run: HookRun = {
    results,
    denied: results.some((r) => !r.verdict && r.deny),
    failed: results.some((r) => !r.verdict),
    background,
  };
  if (current.request.json !== ctx.request.json) run.request = current.request.json;
  if (current.response && ctx.response && current.response.json !== ctx.response.json) run.response = current.response.json;
  return run;
}

export interface HookResults {
  before_request_hooks: HookResult[];
  after_request_hooks: HookResult[];
}

/** 446: a denying guardrail failed (the reference's body shape, so clients that parse it keep working). */
export function deniedBody(hookResults: HookResults): string {
  return JSON.stringify({
    error: { message: 'The guardrail checks defined in the config failed. You can find more information in the `hook_results` object.', type: 'hooks_failed', param: null, code: 'hooks_failed' },
    hook_results: hookResults,
  });
}

/** 246: the answer with `hook_results` appended (non-blocking failure). */
export function withHookResults(json: unknown, hookResults: HookResults): string {
  return JSON.stringify(json && typeof json === 'object' && !Array.isArray(json) ? { ...(json as object), hook_results: hookResults } : { data: json, hook_results: hookResults });
}

export const GUARDRAIL_DENIED_STATUS = 446;
export const GUARDRAIL_FAILED_STATUS = 246;
