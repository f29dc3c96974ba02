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
