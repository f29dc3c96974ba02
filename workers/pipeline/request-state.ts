import type { ResolvedKey } from '../../src/domain/api-key.ts';
import type { CustomModelPrice } from '../../src/domain/pricing/types.ts';
import type { UsageAlert, UsageRecord } from '../../src/domain/usage-record.ts';
import { NO_SPAN, type Span } from '../../src/domain/tracing.ts';
import { NO_TOKENS, type Tokens } from './tokens.ts';

/** What one request accumulates on its way through the pipeline; becomes its usage record. */
export class RequestState {
  readonly requestId = crypto.randomUUID();
  readonly startedAtMs = Date.now();
  private readonly t0 = performance.now();
  attempt = 0;
  key: ResolvedKey | null = null;
  provider = '';
  model = '';
  status = 0;
  upstreamLatencyMs = 0;
  tokens: Tokens = NO_TOKENS;
  isStream = false;
  errorCode = '';
  metadata: Record<string, unknown> | null = null;
  /** The metadata's `_user` (spec: Request headers, metadata). */
  user: string | null = null;
  /** USD cents this request cost (issue 8 item 4); null when its model has no price. */
  costCents: number | null = null;
  /** Custom model prices of the managed provider the request names (checked before the catalogue). */
  customPrices: CustomModelPrice[] = [];
  /** Usage-limit alert thresholds this request crossed (issue 8 item 3). */
  alerts: UsageAlert[] = [];
  /** Settles the limits' reservations to the real usage (set by admission; issue 8). */
  settleLimits: ((state: RequestState) => void) | null = null;
  /** The request's root span (request-span.ts); the shared no-op when untraced. */
  span: Span = NO_SPAN;

  /** Sets the metadata (key defaults under the request's own) and the user it names. */
  setMetadata(metadata: Record<string, unknown> | null): void {
    this.metadata = metadata;
    const user = metadata?._user;
    this.user = typeof user === 'string' && user ? user : typeof user === 'number' ? String(user) : null;
  }

  constructor(readonly traceId: string, readonly endpoint: string, readonly method: string) {}

  /** How a relayed stream ended ('' cleanly); the gateway ending a stalled stream keeps its own code. */
  streamEnded(code: string): void {
    if (code && this.errorCode !== 'stream_idle_timeout') this.errorCode = code;
  }

  elapsedMs(): number {
    return Math.round(performance.now() - this.t0);
  }

  markUpstreamHeaders(): void {
    this.upstreamLatencyMs = this.elapsedMs();
  }

  toRecord(): UsageRecord | null {
    if (!this.key) return null; // unauthenticated requests belong to no organisation
    return {
      idempotency_id: `${this.requestId}:${this.attempt}`,
      request_id: this.requestId,
      attempt: this.attempt,
      trace_id: this.traceId,
      organisation_id: this.key.organisationId,
      workspace_id: this.key.workspaceId ?? '',
      api_key_id: this.key.id,
      provider: this.provider,
      model: this.model,
      endpoint: this.endpoint,
      method: this.method,
      status: this.status,
      started_at_ms: this.startedAtMs,
      latency_ms: this.elapsedMs(),
      upstream_latency_ms: this.upstreamLatencyMs,
      prompt_tokens: this.tokens.prompt,
      completion_tokens: this.tokens.completion,
      total_tokens: this.tokens.total,
      is_stream: this.isStream,
      error_code: this.errorCode,
      metadata_json: this.metadata ? JSON.stringify(this.metadata) : '',
      ...(this.costCents !== null ? { cost: this.costCents } : {}),
      ...(this.tokens.cachedPrompt ? { cached_prompt_tokens: this.tokens.cachedPrompt } : {}),
      ...(this.alerts.length ? { alerts_json: JSON.stringify(this.alerts) } : {}),
    };
  }
}
