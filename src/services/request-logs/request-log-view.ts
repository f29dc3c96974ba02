// How a stored request log answers: list items (flat, no bodies) and the LogObject of
// GET /logs/{logId} (control-plane-schemas 2.14).
import { readBody } from '../../domain/log-fields.ts';

/** A request_log row as read with SQL (plus the workspace slug). */
export type LogDbRow = Record<string, unknown> & {
  id: string;
  started_at: Date | string;
  workspace_slug?: string | null;
};

const iso = (v: unknown): string => (v instanceof Date ? v : new Date(String(v))).toISOString();
const num = (v: unknown): number => Number(v ?? 0);

export interface RequestLogItem {
  id: string;
  object: 'log';
  trace_id: string;
  request_id: string;
  organisation_id: string;
  workspace_id: string | null;
  workspace_slug: string | null;
  api_key_id: string | null;
  user: string | null;
  metadata: Record<string, unknown> | null;
  provider: string;
  ai_model: string | null;
  endpoint: string;
  method: string;
  request_url: string | null;
  status: number;
  is_success: boolean;
  response_time: number;
  upstream_response_time: number;
  req_units: number;
  res_units: number;
  total_units: number;
  cost: number;
  cost_currency: string;
  cache_status: string | null;
  retry_count: number;
  target_path: string | null;
  guardrail_verdicts: unknown[] | null;
  is_stream: boolean;
  is_proxy: boolean;
  mode: string | null;
  config: string | null;
  virtual_key: string | null;
  prompt_slug: string | null;
  span_id: string | null;
  span_name: string | null;
  error_code: string | null;
  source: string;
  bodies_truncated: boolean;
  created_at: string;
}

export function toRequestLogItem(r: LogDbRow): RequestLogItem {
  const status = num(r.status);
  return {
    id: r.id,
    object: 'log',
    trace_id: String(r.trace_id),
    request_id: String(r.request_id),
    organisation_id: String(r.organisation_id),
    workspace_id: (r.workspace_id as string | null) ?? null,
    workspace_slug: r.workspace_slug ?? null,
    api_key_id: (r.api_key_id as string | null) ?? null,
    user: (r.user_id as string | null) ?? null,
    metadata: (r.metadata as Record<string, unknown> | null) ?? null,
    provider: String(r.provider),
    ai_model: (r.model as string | null) ?? null,
    endpoint: String(r.endpoint),
    method: String(r.method),
    request_url: (r.request_url as string | null) ?? null,
    status,
    is_success: status >= 200 && status < 300,
    response_time: num(r.latency_ms),
    upstream_response_time: num(r.upstream_latency_ms),
    req_units: num(r.prompt_tokens),
    res_units: num(r.completion_tokens),
    total_units: num(r.total_tokens),
    cost: num(r.cost),
    cost_currency: String(r.cost_currency ?? 'USD'),
    cache_status: (r.cache_status as string | null) ?? null,
    retry_count: num(r.retry_count),
    target_path: (r.target_path as string | null) ?? null,
    guardrail_verdicts: (r.guardrail_verdicts as unknown[] | null) ?? null,
    is_stream: Boolean(r.is_stream),
    is_proxy: Boolean(r.is_proxy),
    mode: (r.mode as string | null) ?? null,
    config: (r.config_id as string | null) ?? null,
    virtual_key: (r.virtual_key as string | null) ?? null,
    prompt_slug: (r.prompt_slug as string | null) ?? null,
    span_id: (r.span_id as string | null) ?? null,
    span_name: (r.span_name as string | null) ?? null,
    error_code: (r.error_code as string | null) ?? null,
    source: String(r.source ?? 'gateway'),
    bodies_truncated: Boolean(r.bodies_truncated),
    created_at: iso(r.started_at),
  };
}

/** The request URL a log names: the stored one, else the gateway path of its endpoint (`chat.completions` → `/v1/chat/completions`). */
const urlOf = (r: LogDbRow): string => (r.request_url as string | null) || `/v1/${String(r.endpoint).replace(/\./g, '/')}`;

const gatewayHeaders = (h: Record<string, string> | null): Record<string, string> =>
  Object.fromEntries(Object.entries(h ?? {}).filter(([k]) => k.startsWith('x-gateway-')));

export interface LogObject {
  _id: string;
  object: 'log';
  request: { url: string; method: string; headers: Record<string, string> | null; body: unknown; gatewayHeaders: Record<string, string> };
  response: { status: number; headers: Record<string, string> | null; body: unknown; responseTime: number; lastUsedOptionJsonPath: string };
  organisation_id: string;
  workspace_id: string | null;
  created_at: string;
  metrics: Record<string, unknown>;
  finalUntransformedRequest: null;
  transformedRequest: null;
  originalResponse: null;
}

/** GET /logs/{logId}: the LogObject; bodies as stored (capped; denied fields already removed). */
export function toLogObject(r: LogDbRow): LogObject {
  const item = toRequestLogItem(r);
  const reqHeaders = (r.request_headers as Record<string, string> | null) ?? null;
  const metadata = item.metadata ?? {};
  return {
    _id: item.id,
    object: 'log',
    request: { url: urlOf(r), method: item.method, headers: reqHeaders, body: readBody((r.request_body as string | null) ?? null), gatewayHeaders: gatewayHeaders(reqHeaders) },
    response: {
      status: item.status,
      headers: (r.response_headers as Record<string, string> | null) ?? null,
      body: readBody((r.response_body as string | null) ?? null),
      responseTime: item.response_time,
      lastUsedOptionJsonPath: item.target_path ?? '',
    },
    organisation_id: item.organisation_id,
    workspace_id: item.workspace_id,
    created_at: item.created_at,
    metrics: {
      id: item.id,
      organisation_id: item.organisation_id,
      workspace_id: item.workspace_id,
      workspace_slug: item.workspace_slug,
      created_at: item.created_at,
      is_success: item.is_success,
      ai_org: item.provider,
      ai_model: item.ai_model,
      req_units: item.req_units,
      res_units: item.res_units,
      total_units: item.total_units,
      cost: item.cost,
      cost_currency: item.cost_currency,
      request_url: urlOf(r),
      request_method: item.method,
      response_status_code: item.status,
      response_time: item.response_time,
      upstream_response_time: item.upstream_response_time,
      is_proxy_call: item.is_proxy,
      cache_status: item.cache_status,
      stream_mode: item.is_stream ? 1 : 0,
      retry_success_count: item.retry_count,
      trace_id: item.trace_id,
      span_id: item.span_id,
      span_name: item.span_name,
      mode: item.mode,
      virtual_key: item.virtual_key,
      config: item.config,
      prompt_slug: item.prompt_slug,
      internal_trace_id: item.request_id,
      api_key_id: item.api_key_id,
      user: item.user,
      source: item.source,
      error_code: item.error_code,
      guardrail_verdicts: item.guardrail_verdicts,
      bodies_truncated: item.bodies_truncated,
      metadata: item.metadata,
      'metadata.key': Object.keys(metadata),
      'metadata.value': Object.values(metadata).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))),
    },
    finalUntransformedRequest: null,
    transformedRequest: null,
    originalResponse: null,
  };
}
