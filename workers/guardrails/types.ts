// Guardrail checks and hooks (issue 7 item 6; reference-gateway-behaviour.md §5: check ids,
// parameters, hook and result shapes — kept so configs written for the reference work here).

export type HookEvent = 'beforeRequestHook' | 'afterRequestHook';

export interface CheckContext {
  event: HookEvent;
  /** chatComplete, complete, embed, messages, proxy, ... */
  requestType: string;
  request: { json: Record<string, unknown>; headers: Record<string, string> };
  /** After the answer: the JSON answer, or for streams the streamed text assembled. */
  response?: { json: unknown; status: number; text?: string };
  metadata: Record<string, unknown>;
  model: string;
}

export interface CheckOutcome {
  verdict: boolean;
  data?: unknown;
  /** A mutator changed the request or answer. */
  transformedData?: { request?: { json: Record<string, unknown> }; response?: { json: unknown } };
}

/** What checks may use from their runtime (outbound calls go through the SSRF-checked upstream). */
export interface CheckDeps {
  fetch(url: string, init: { method: string; headers: Record<string, string>; body?: string; timeoutMs: number }): Promise<{ status: number; text(): Promise<string> }>;
  now(): number;
}

export type CheckFn = (ctx: CheckContext, params: Record<string, unknown>, deps: CheckDeps) => CheckOutcome | Promise<CheckOutcome>;

export interface HookCheck {
  id: string;
  parameters: Record<string, unknown>;
  is_enabled?: boolean;
}

export interface Hook {
  id: string;
  type: 'guardrail' | 'mutator';
  checks: HookCheck[];
  deny: boolean;
  async: boolean;
  sequential: boolean;
  on_fail?: Record<string, unknown>;
  on_success?: Record<string, unknown>;
}

export interface CheckResult {
  verdict: boolean;
  id: string;
  data: unknown;
  error?: { name: string; message: string };
  execution_time: number;
  transformed: boolean;
  created_at: string;
  fail_on_error: boolean;
}

export interface HookResult {
  verdict: boolean;
  id: string;
  transformed: boolean;
  checks: CheckResult[];
  feedback: null | { value: number; weight: number; metadata: { successfulChecks: string; failedChecks: string; erroredChecks: string } };
  execution_time: number;
  async: boolean;
  type: 'guardrail' | 'mutator';
  created_at: string;
  deny: boolean;
}
