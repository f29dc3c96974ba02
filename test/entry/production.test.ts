// `npm run control-plane` and `npm run worker` as separate processes, configured by environment.
import { describe, it, expect, afterAll } from 'vitest';
import { generateApiKeySecret } from '../../src/domain/api-key-secret.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { startMockProvider, type MockProvider } from '../support/mock-provider.ts';
import { runEntry, type RunningProcess } from '../support/process.ts';

const procs: RunningProcess[] = [];
let db: TestDatabase | undefined;
let mock: MockProvider | undefined;
afterAll(async () => {
  for (const p of procs) await p.stop();
  await mock?.close();
  await db?.drop();
});
const run = (file: string, env: Record<string, string>) => {
  const p = runEntry(file, env);
  procs.push(p);
  return p;
};

describe('production entry points', () => {
  it('stop with a message naming each missing or bad setting', async () => {
    const cp = run('src/entry/control-plane.ts', {});
    expect(await cp.exited).toBe(1);
    expect(cp.output()).toContain('DATABASE_URL: is required but not set');
    expect(cp.output()).toContain('WORKER_TOKEN: is required but not set');
    expect(cp.output()).toContain('GATEWAY_SECRET_KEY: is required but not set');
    const w = run('src/entry/worker.ts', { CONTROL_PLANE_GRPC_URL: 'x', WORKER_TOKEN: 'w'.repeat(20) });
    expect(await w.exited).toBe(1);
    expect(w.output()).toContain('CONTROL_PLANE_GRPC_URL: must be host:port');
  });

  it('migrate and bootstrap an empty database with GATEWAY_ADMIN_KEY, and serve a worker over gRPC', async () => {
    db = await createTestDatabase({ migrate: false });
    mock = await startMockProvider();
    const adminKey = generateApiKeySecret(44);
    const workerToken = 'prod-test-worker-token-123456';
    const cp = run('src/entry/control-plane.ts', { DATABASE_URL: db.url, WORKER_TOKEN: workerToken, GATEWAY_ADMIN_KEY: adminKey, GATEWAY_SECRET_KEY: Buffer.alloc(32, 9).toString('base64'), CONTROL_PLANE_PORT: '0', GRPC_PORT: '0' });
    const [, http, grpc] = (await cp.waitFor(/"msg":"control plane listening","http":(\d+),"grpc":(\d+)/)) as RegExpMatchArray;
    expect(cp.output()).not.toContain(adminKey);
    const w = run('src/entry/worker.ts', { CONTROL_PLANE_GRPC_URL: `127.0.0.1:${grpc}`, WORKER_TOKEN: workerToken, WORKER_PORT: '0', TRUSTED_CUSTOM_HOSTS: '127.0.0.1', USAGE_FLUSH_INTERVAL_MS: '10' });
    const [, wport] = (await w.waitFor(/"msg":"worker listening","host":"127.0.0.1","port":(\d+)/)) as RegExpMatchArray;

    const created = await fetch(`http://127.0.0.1:${http}/v1/api-keys/workspace/service`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'svc', workspace_id: 'ws-default', scopes: ['completions.write'] }),
    });
    expect(created.status).toBe(200);
    const { key } = (await created.json()) as { key: string };
    const res = await fetch(`http://127.0.0.1:${wport}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': key, 'x-gateway-provider': 'openai', authorization: 'Bearer sk', 'x-gateway-custom-host': mock.baseUrl, 'content-type': 'application/json', 'x-gateway-trace-id': 'prod-trace' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    let rows: any[] = [];
    for (let i = 0; i < 200 && !rows.length; i++) {
      rows = await db.orm.em.getConnection().execute("select total_tokens from request_log where trace_id = 'prod-trace'");
      if (!rows.length) await new Promise((r) => setTimeout(r, 25));
    }
    expect(rows).toEqual([{ total_tokens: 18 }]);
    expect(await w.stop()).toBe(0);
    expect(await cp.stop()).toBe(0);
  });
});
