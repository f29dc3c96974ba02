// /metrics on workers and the control plane (issue 9 item 5), in Prometheus text format.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { WorkerMetrics } from '../../../src/platform/metrics/worker-metrics.ts';
import { startStack, type Stack } from '../../support/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ workers: 1 });
});
afterAll(async () => stack?.close());

const value = (text: string, line: RegExp): number => Number(text.split('\n').find((l) => line.test(l))?.split(' ').pop());

describe('/metrics', () => {
  it('the worker exposes requests, latency, sync, usage buffer and cache gauges without an API key', async () => {
    // One refused request (no key) is still a request.
    await fetch(`${stack.workers[0]!.url}/v1/chat/completions`, { method: 'POST', body: '{}' });
    const res = await fetch(`${stack.workers[0]!.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    for (const name of ['gateway_usage_unacknowledged_records', 'gateway_usage_dropped_records', 'gateway_sync_lag_seconds', 'gateway_sync_applied_version', 'gateway_control_plane_reachable', 'gateway_cache_entries', 'gateway_worker_process_cpu_seconds_total']) {
      expect(text, name).toContain(`# TYPE ${name}`);
    }
    expect(value(text, /^gateway_control_plane_reachable /)).toBe(1);
  });

  it('records each observed request by endpoint, provider and status, with upstream errors, cache and refusals', async () => {
    const m = new WorkerMetrics(
      { usage: () => ({ queued: 2, awaitingAck: 3, dropped: 1, acknowledged: 9 }), sync: () => ({ connected: false, appliedVersion: 7, disconnectedSinceMs: Date.now() - 5_000 }), caches: () => ({ keys: 4, resources: 5 }), controlPlaneReachable: () => false },
      { defaultMetrics: false },
    );
    m.observe({ endpoint: 'chat.completions', provider: 'openai', status: 200, latencyMs: 120, upstreamLatencyMs: 80, cacheStatus: 'HIT', errorCode: '' });
    m.observe({ endpoint: 'chat.completions', provider: 'openai', status: 502, latencyMs: 30, upstreamLatencyMs: 0, cacheStatus: '', errorCode: 'upstream_unreachable' });
    m.observe({ endpoint: 'chat.completions', provider: 'openai', status: 429, latencyMs: 1, upstreamLatencyMs: 0, cacheStatus: '', errorCode: 'rate_limit_exceeded' });
    const { body } = await m.text();
    expect(value(body, /^gateway_requests_total\{endpoint="chat.completions",provider="openai",status="200"\}/)).toBe(1);
    expect(value(body, /^gateway_upstream_errors_total\{provider="openai",code="upstream_unreachable"\}/)).toBe(1);
    expect(value(body, /^gateway_cache_requests_total\{status="HIT"\}/)).toBe(1);
    expect(value(body, /^gateway_rate_limit_refusals_total\{code="rate_limit_exceeded"\}/)).toBe(1);
    expect(value(body, /^gateway_request_duration_seconds_count\{endpoint="chat.completions",provider="openai"\}/)).toBe(3);
    expect(value(body, /^gateway_usage_unacknowledged_records /)).toBe(5);
    expect(value(body, /^gateway_sync_lag_seconds /)).toBeGreaterThanOrEqual(5);
    expect(value(body, /^gateway_cache_entries\{cache="resources"\}/)).toBe(5);
  });

  it('the control plane exposes HTTP requests by API, watchers, the change feed and stored usage records', async () => {
    await fetch(`${stack.controlPlane.httpUrl}/health`);
    const res = await fetch(`${stack.controlPlane.httpUrl}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(value(text, /^gateway_cp_http_requests_total\{api="health",status="200"\}/)).toBeGreaterThanOrEqual(1);
    expect(value(text, /^gateway_cp_watch_streams /)).toBe(1);
    expect(text).toContain('# TYPE gateway_cp_change_feed_version gauge');
    expect(text).toContain('# TYPE gateway_cp_usage_records_total counter');
    expect(text).toContain('# TYPE gateway_control_plane_process_cpu_seconds_total');
  });
});
