// `npm start` on a fresh machine: the embedded default, first start and restart.
import { describe, it, expect, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMockProvider, type MockProvider } from '../support/mock-provider.ts';
import { runEntry, type RunningProcess } from '../support/process.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'gw-start-'));
let mock: MockProvider | undefined;
const procs: RunningProcess[] = [];
afterAll(async () => {
  for (const p of procs) await p.stop();
  await mock?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const env = { GATEWAY_DATA_DIR: dataDir, CONTROL_PLANE_PORT: '0', GRPC_PORT: '0', WORKER_PORT: '0', TRUSTED_CUSTOM_HOSTS: '127.0.0.1' };

async function start(): Promise<{ p: RunningProcess; cp: string; worker: string }> {
  const p = runEntry('src/entry/start.ts', env);
  procs.push(p);
  await p.waitFor(/Then call a model/, 60_000);
  const cp = p.output().match(/Control plane\s+(http:\/\/127\.0\.0\.1:\d+)\/graphql/)![1]!;
  const worker = p.output().match(/Worker\s+(http:\/\/127\.0\.0\.1:\d+)\/v1\/chat\/completions/)![1]!;
  return { p, cp, worker };
}

describe('npm start (embedded PGlite, in-process store)', () => {
  it('bootstraps on first start, prints the admin key once, serves a chat, and keeps its data across a restart', async () => {
    mock = await startMockProvider();
    const first = await start();
    const adminKey = first.p.output().match(/Admin API key \(shown once, store it now\):\s+([A-Za-z0-9]{40,})/)![1]!;
    expect(first.p.output()).toContain(`curl -s ${first.cp}/v2/api-keys/service`);

    const created = await fetch(`${first.cp}/v2/api-keys/service`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': adminKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'app', workspace_id: 'ws-default', scopes: ['completions.write'] }),
    });
    expect(created.status).toBe(200);
    const appKey = ((await created.json()) as { key: string }).key;
    const chat = () =>
      fetch(`${(current ?? first).worker}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'x-gateway-api-key': appKey, 'x-gateway-provider': 'openai', authorization: 'Bearer sk', 'x-gateway-custom-host': mock!.baseUrl, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
    let current: typeof first | undefined;
    expect((await chat()).status).toBe(200);
    expect(await first.p.stop()).toBe(0);

    current = await start();
    expect(current.p.output()).not.toMatch(/shown once/);
    expect(current.p.output()).not.toContain(adminKey);
    const me = await fetch(`${current.cp}/graphql`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': adminKey, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ apiKeys { total } }' }),
    });
    expect(((await me.json()) as any).data.apiKeys.total).toBe(2);
    expect((await chat()).status).toBe(200);
    expect(await current.p.stop()).toBe(0);
  });
});
