// Prometheus metrics of a control-plane replica (issue 9 item 5).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface ControlPlaneGauges {
  watchers(): number;
  feedVersion(): number;
  feedListening(): boolean;
}

export class ControlPlaneMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter;
  private readonly duration: Histogram;
  readonly usageRecords: Counter;

  constructor(gauges: ControlPlaneGauges, opts: { defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: 'gateway_control_plane_' });
    this.requests = new Counter({ name: 'gateway_cp_http_requests_total', help: 'Control-plane HTTP requests.', labelNames: ['api', 'status'], registers });
    this.duration = new Histogram({ name: 'gateway_cp_http_request_duration_seconds', help: 'Control-plane HTTP latency.', labelNames: ['api'], buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5], registers });
    this.usageRecords = new Counter({ name: 'gateway_cp_usage_records_total', help: 'Usage records received from workers, by outcome.', labelNames: ['result'], registers });
    new Gauge({ name: 'gateway_cp_watch_streams', help: 'Workers watching this replica.', registers, collect() { this.set(gauges.watchers()); } });
    new Gauge({ name: 'gateway_cp_change_feed_version', help: 'Highest resource change delivered to watchers.', registers, collect() { this.set(gauges.feedVersion()); } });
    new Gauge({ name: 'gateway_cp_change_feed_listening', help: '1 while LISTEN/NOTIFY is up (else the poll carries changes).', registers, collect() { this.set(gauges.feedListening() ? 1 : 0); } });
  }

  /** `api`: graphql, rest, health, metrics or unknown. */
  observe(api: string, status: number, seconds: number): void {
    this.requests.inc({ api, status: String(status) });
    this.duration.observe({ api }, seconds);
  }

  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
