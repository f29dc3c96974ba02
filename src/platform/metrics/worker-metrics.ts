// Prometheus metrics of a worker (issue 9 item 5): requests, latency histograms, upstream errors by
// provider, cache hits, rate-limit refusals, sync lag, unacknowledged usage records, overflow.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { RequestMetrics, RequestObservation } from '../../domain/metrics.ts';

/** Read at scrape time from the worker's parts. */
export interface WorkerGauges {
  usage(): { queued: number; awaitingAck: number; dropped: number; acknowledged: number };
  sync(): { connected: boolean; appliedVersion: number; disconnectedSinceMs: number | null };
  caches(): { keys: number; resources: number };
  controlPlaneReachable(): boolean;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const RATE_LIMIT_CODES = new Set(['rate_limit_exceeded', 'usage_limit_exceeded', 'rate_limiter_unavailable']);

export class WorkerMetrics implements RequestMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter;
  private readonly duration: Histogram;
  private readonly upstreamDuration: Histogram;
  private readonly upstreamErrors: Counter;
  private readonly cache: Counter;
  private readonly refusals: Counter;

  constructor(gauges: WorkerGauges, opts: { defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: 'gateway_worker_' });
    this.requests = new Counter({ name: 'gateway_requests_total', help: 'Data-plane requests answered.', labelNames: ['endpoint', 'provider', 'status'], registers });
    this.duration = new Histogram({ name: 'gateway_request_duration_seconds', help: 'Time from request to answer headers (streams: to the end).', labelNames: ['endpoint', 'provider'], buckets: LATENCY_BUCKETS, registers });
    this.upstreamDuration = new Histogram({ name: 'gateway_upstream_duration_seconds', help: "Time to the provider's first byte.", labelNames: ['provider'], buckets: LATENCY_BUCKETS, registers });
    this.upstreamErrors = new Counter({ name: 'gateway_upstream_errors_total', help: 'Provider answers >= 500, unreachable providers and timeouts.', labelNames: ['provider', 'code'], registers });
    this.cache = new Counter({ name: 'gateway_cache_requests_total', help: 'Cache lookups by x-gateway-cache-status.', labelNames: ['status'], registers });
    this.refusals = new Counter({ name: 'gateway_rate_limit_refusals_total', help: 'Requests refused by rate limits or budgets.', labelNames: ['code'], registers });
    new Gauge({ name: 'gateway_usage_unacknowledged_records', help: 'Usage records not yet acknowledged by the control plane.', registers, collect() { this.set(gauges.usage().queued + gauges.usage().awaitingAck); } });
    new Gauge({ name: 'gateway_usage_dropped_records', help: 'Usage records dropped by buffer overflow since start.', registers, collect() { this.set(gauges.usage().dropped); } });
    new Gauge({ name: 'gateway_usage_acknowledged_records', help: 'Usage records acknowledged since start.', registers, collect() { this.set(gauges.usage().acknowledged); } });
    new Gauge({
      name: 'gateway_sync_lag_seconds',
      help: 'How long the Watch stream has been down (0 while connected): how stale cached keys and configs may be.',
      registers,
      collect() {
        const s = gauges.sync();
        this.set(s.connected || s.disconnectedSinceMs === null ? 0 : (Date.now() - s.disconnectedSinceMs) / 1_000);
      },
    });
    new Gauge({ name: 'gateway_sync_applied_version', help: 'Highest change version applied from the control plane.', registers, collect() { this.set(gauges.sync().appliedVersion); } });
    new Gauge({ name: 'gateway_control_plane_reachable', help: '1 when the control plane answers.', registers, collect() { this.set(gauges.controlPlaneReachable() ? 1 : 0); } });
    new Gauge({ name: 'gateway_cache_entries', help: 'Entries held by the worker caches.', labelNames: ['cache'], registers, collect() {
      const c = gauges.caches();
      this.set({ cache: 'keys' }, c.keys);
      this.set({ cache: 'resources' }, c.resources);
    } });
  }

  observe(o: RequestObservation): void {
    const provider = o.provider || 'none';
    this.requests.inc({ endpoint: o.endpoint, provider, status: String(o.status) });
    this.duration.observe({ endpoint: o.endpoint, provider }, o.latencyMs / 1_000);
    if (o.upstreamLatencyMs > 0) this.upstreamDuration.observe({ provider }, o.upstreamLatencyMs / 1_000);
    if (o.status >= 500 || o.status === 408 || o.errorCode.startsWith('upstream_')) this.upstreamErrors.inc({ provider, code: o.errorCode || String(o.status) });
    if (o.cacheStatus) this.cache.inc({ status: o.cacheStatus });
    if (RATE_LIMIT_CODES.has(o.errorCode)) this.refusals.inc({ code: o.errorCode });
  }

  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
