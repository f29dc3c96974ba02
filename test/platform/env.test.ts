import { describe, it, expect } from 'vitest';
import { ConfigError, loadControlPlaneEnv, loadEmbeddedEnv, loadWorkerEnv } from '../../src/platform/env.ts';

const fails = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('expected a ConfigError');
};

describe('process settings', () => {
  it('names each missing control-plane setting', () => {
    const msg = fails(() => loadControlPlaneEnv({}));
    expect(msg).toContain('DATABASE_URL: is required but not set');
    expect(msg).toContain('WORKER_TOKEN: is required but not set');
    expect(msg).toContain('GATEWAY_SECRET_KEY: is required but not set');
  });

  it('names a bad setting and why', () => {
    expect(fails(() => loadControlPlaneEnv({ DATABASE_URL: 'mysql://x', WORKER_TOKEN: 'x'.repeat(20) }))).toContain('DATABASE_URL: must be a postgres or postgresql URL');
    expect(fails(() => loadControlPlaneEnv({ DATABASE_URL: 'postgres://h/db', WORKER_TOKEN: 'short' }))).toContain('WORKER_TOKEN');
    expect(fails(() => loadControlPlaneEnv({ DATABASE_URL: 'postgres://h/db', WORKER_TOKEN: 'x'.repeat(20), GRPC_PORT: '70000' }))).toContain('GRPC_PORT');
    expect(fails(() => loadControlPlaneEnv({ DATABASE_URL: 'postgres://h/db', WORKER_TOKEN: 'x'.repeat(20), GATEWAY_ADMIN_KEY: 'abc' }))).toContain('GATEWAY_ADMIN_KEY');
    expect(fails(() => loadWorkerEnv({ CONTROL_PLANE_GRPC_URL: 'nope', WORKER_TOKEN: 'x'.repeat(20) }))).toContain('CONTROL_PLANE_GRPC_URL: must be host:port');
    expect(fails(() => loadWorkerEnv({ WORKER_TOKEN: 'x'.repeat(20) }))).toContain('CONTROL_PLANE_GRPC_URL: is required');
  });

  it('applies the documented defaults', () => {
    expect(loadControlPlaneEnv({ DATABASE_URL: 'postgres://h/db', WORKER_TOKEN: 'x'.repeat(20), GATEWAY_SECRET_KEY: 'ab'.repeat(32) })).toMatchObject({ HOST: '127.0.0.1', CONTROL_PLANE_PORT: 8080, GRPC_PORT: 50051, ROTATION_INTERVAL_MS: 60_000 });
    expect(loadWorkerEnv({ CONTROL_PLANE_GRPC_URL: 'control-plane:50051', WORKER_TOKEN: 'x'.repeat(20) })).toMatchObject({ WORKER_PORT: 8787, HOST: '127.0.0.1' });
    expect(loadWorkerEnv({ CONTROL_PLANE_GRPC_URL: '[::1]:50051', WORKER_TOKEN: 'x'.repeat(20) }).CONTROL_PLANE_GRPC_URL).toBe('[::1]:50051');
    expect(loadEmbeddedEnv({})).toMatchObject({ GATEWAY_DATA_DIR: '.data', CONTROL_PLANE_PORT: 8080, GRPC_PORT: 50051, WORKER_PORT: 8787, HOST: '127.0.0.1' });
  });
});
