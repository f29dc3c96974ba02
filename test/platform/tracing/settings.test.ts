// Tracing settings (issue 9 item 5): the standard OTEL_* variables, for workers and the control plane.
import { describe, it, expect } from 'vitest';
import { loadControlPlaneEnv, loadEmbeddedEnv, loadWorkerEnv } from '../../../src/platform/env.ts';
import { workerSettingsFromEnv } from '../../../workers/runtime/settings.ts';

const WORKER = { CONTROL_PLANE_GRPC_URL: '127.0.0.1:50051', WORKER_TOKEN: 'w'.repeat(16) };
const CP = { DATABASE_URL: 'postgres://localhost/x', WORKER_TOKEN: 'w'.repeat(16), GATEWAY_SECRET_KEY: Buffer.alloc(32, 1).toString('base64') };

describe('OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_SERVICE_NAME', () => {
  it('the worker: unset means no endpoint (no-op tracing) and the default service name', () => {
    expect(workerSettingsFromEnv(loadWorkerEnv(WORKER)).tracing).toEqual({ endpoint: undefined, serviceName: 'ai-gateway-worker' });
    expect(workerSettingsFromEnv(loadWorkerEnv({ ...WORKER, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:4318', OTEL_SERVICE_NAME: 'edge' })).tracing).toEqual({ endpoint: 'http://otel:4318', serviceName: 'edge' });
  });

  it('the control plane defaults to ai-gateway-control-plane; the embedded gateway leaves each part its default', () => {
    expect(loadControlPlaneEnv(CP)).toMatchObject({ OTEL_SERVICE_NAME: 'ai-gateway-control-plane' });
    expect(loadControlPlaneEnv(CP).OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined();
    const embedded = loadEmbeddedEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example' });
    expect(embedded.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('https://otel.example');
    expect(embedded.OTEL_SERVICE_NAME).toBeUndefined();
  });

  it('a bad endpoint stops the process with a message naming the variable', () => {
    expect(() => loadWorkerEnv({ ...WORKER, OTEL_EXPORTER_OTLP_ENDPOINT: 'otel:4318' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT: must be a http or https URL/);
    expect(() => loadControlPlaneEnv({ ...CP, OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://otel' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
  });
});
