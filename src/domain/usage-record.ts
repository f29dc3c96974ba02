// One request's usage, as the worker reports it and the control plane stores it.
export interface UsageRecord {
  idempotency_id: string;
  request_id: string;
  attempt: number;
  trace_id: string;
  organisation_id: string;
  workspace_id: string;
  api_key_id: string;
  provider: string;
  model: string;
  endpoint: string;
  method: string;
  status: number;
  started_at_ms: number;
  latency_ms: number;
  upstream_latency_ms: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  is_stream: boolean;
  error_code: string;
  metadata_json: string;
  // Request-log additions (issue 9, item 1), optional so older workers keep reporting; over gRPC an
  // unset one arrives as its proto default ("" / 0 / false), which means "not known".
  /** The `_user` metadata value; derived from metadata_json when empty. */
  user?: string;
  /** Cost in cents. */
  cost?: number;
  cost_currency?: string;
  /** HIT | MISS | SEMANTIC HIT | DISABLED … ("" = not cached / unknown). */
  cache_status?: string;
  retry_count?: number;
  /** Which config target answered, as a JSON path (e.g. `targets[1]`). */
  target_path?: string;
  /** JSON array of guardrail verdicts. */
  guardrail_verdicts_json?: string;
  request_url?: string;
  request_headers_json?: string;
  request_body?: string;
  response_headers_json?: string;
  response_body?: string;
  /** A pass-through (proxy) request. */
  is_proxy?: boolean;
  config_id?: string;
  /** Managed provider slug or legacy virtual key used. */
  virtual_key?: string;
  prompt_slug?: string;
  span_id?: string;
  span_name?: string;
  /** single | loadbalance | fallback … */
  mode?: string;
  /** Issue 8: prompt tokens read from the provider's prompt cache (part of prompt_tokens). */
  cached_prompt_tokens?: number;
  /** Issue 8: usage limits whose alert threshold this request crossed (once per period), JSON list of {@link UsageAlert}. */
  alerts_json?: string;
}

/** A usage limit's alert threshold crossed (issue 8 item 3): the control plane notifies on it. */
export interface UsageAlert {
  /** `api_key` (the key's usage_limits, notified to its alert_emails) or `policy` (a usage-limit policy). */
  scope: 'api_key' | 'policy';
  /** The key's or the policy's id. */
  id: string;
  type: 'cost' | 'tokens' | 'requests';
  alert_threshold: number;
  credit_limit: number;
  /** Epoch ms when the period ends. */
  period_end_ms: number;
}

export interface UsageBatch {
  batch_id: string;
  records: UsageRecord[];
}

export interface ReportAck {
  batch_id: string;
  stored: number;
  duplicates: number;
  rejected: number;
}
