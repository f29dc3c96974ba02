// What the data plane records about each request (issue 9 item 5). The pipeline sees only this
// interface; the runtime backs it with Prometheus (src/platform/metrics/worker-metrics.ts).

export interface RequestObservation {
  endpoint: string;
  provider: string;
  status: number;
  latencyMs: number;
  /** Time to the provider's first byte (0 when the request never went upstream). */
  upstreamLatencyMs: number;
  /** x-gateway-cache-status, or '' when caching did not apply. */
  cacheStatus: string;
  /** The error's stable code ('' on success), e.g. rate_limit_exceeded, upstream_unreachable. */
  errorCode: string;
}

export interface RequestMetrics {
  observe(o: RequestObservation): void;
}

export const NO_METRICS: RequestMetrics = { observe: () => {} };
