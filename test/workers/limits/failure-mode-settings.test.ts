// Issue 8 item 6: RATE_LIMIT_FAILURE_MODE reaches the worker's settings (default open).
import { describe, it, expect } from 'vitest';
import { ConfigError, loadWorkerEnv } from '../../../src/platform/env.ts';
import { workerSettingsFromEnv } from '../../../workers/runtime/settings.ts';

const base = { CONTROL_PLANE_GRPC_URL: '127.0.0.1:50051', WORKER_TOKEN: 'worker-token-0123456789' };

describe('RATE_LIMIT_FAILURE_MODE', () => {
  it('is open by default, closed when asked, and anything else is a configuration error naming it', () => {
    expect(workerSettingsFromEnv(loadWorkerEnv(base)).rateLimitFailureMode).toBe('open');
    expect(workerSettingsFromEnv(loadWorkerEnv({ ...base, RATE_LIMIT_FAILURE_MODE: 'closed' })).rateLimitFailureMode).toBe('closed');
    expect(() => loadWorkerEnv({ ...base, RATE_LIMIT_FAILURE_MODE: 'maybe' })).toThrow(ConfigError);
    expect(() => loadWorkerEnv({ ...base, RATE_LIMIT_FAILURE_MODE: 'maybe' })).toThrow(/RATE_LIMIT_FAILURE_MODE/);
  });
});
