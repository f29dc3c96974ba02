// The Deno worker entry (workers/runtime/deno.ts) as a real Deno process in front of a real
// control plane: a chat completion end to end, the usage row it reports, and key refusal.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockProvider, type MockProvider } from '../../support/mock-provider.ts';
import { startStack, TEST_WORKER_TOKEN, type Stack } from '../../support/stack.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DENO = `${ROOT}node_modules/.bin/deno`;
const START_TIMEOUT_MS = 60_000;
const PROVIDER_KEY = 'sk-provider-deno-test';

interface DenoProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  stop(): Promise<void>;
}

/** Spawns the Deno worker and resolves once it logs that it listens (or rejects on exit/timeout). */
function spawnDenoWorker(grpcPort: number): Promise<DenoProcess> {
  const child = spawn(DENO, ['run', '--node-modules-dir=manual', '-A', 'workers/runtime/deno.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...(process.env.DENO_DIR ? { DENO_DIR: process.env.DENO_DIR } : {}),
      NO_COLOR: '1',
      CONTROL_PLANE_GRPC_URL: `127.0.0.1:${grpcPort}`,
      WORKER_TOKEN: TEST_WORKER_TOKEN,
      WORKER_PORT: '0',
      HOST: '127.0.0.1',
      TRUSTED_CUSTOM_HOSTS: '127.0.0.1',
      LOG_LEVEL: 'info',
      USAGE_FLUSH_INTERVAL_MS: '20',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const output = () => out;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = await Promise.race([
      exited.then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), 10_000))),
    ]);
    clearTimeout(timer);
    if (gaveUp) {
      child.kill('SIGKILL');
      await exited;
    }
  };

  return new Promise<DenoProcess>((resolve, reject) => {
    let pending = '';
    const timer = setTimeout(() => {
      cleanup();
      void stop();
      reject(new Error(`Deno worker did not listen within ${START_TIMEOUT_MS} ms; output:\n${out}`));
    }, START_TIMEOUT_MS);
    const onStdout = (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl).trim();
        pending = pending.slice(nl + 1);
        let parsed: { msg?: string; port?: number } | undefined;
        try {
          parsed = JSON.parse(line) as { msg?: string; port?: number };
        } catch {
          continue;
        }
        if (parsed?.msg === 'worker listening' && typeof parsed.port === 'number') {
          cleanup();
          resolve({ child, url: `http://127.0.0.1:${parsed.port}`, output, stop });
          return;
        }
      }
    };
    const onExit = (code: number | null, signal: string | null) => {
      cleanup();
      reject(new Error(`Deno worker exited (code ${code}, signal ${signal}) before listening; output:\n${out}`));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout!.off('data', onStdout);
      child.off('exit', onExit);
      child.off('error', onError);
    };
    child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr!.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stdout!.on('data', onStdout);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}

interface LogRow {
  provider: string;
  status: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  api_key_id: string;
}

async function waitForLogRow(stack: Stack, traceId: string): Promise<LogRow> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const rows = (await stack.db.orm.em
      .getConnection()
      .execute('select provider, status, prompt_tokens, completion_tokens, total_tokens, api_key_id from request_log where trace_id = ?', [traceId])) as LogRow[];
    if (rows.length > 0) return rows[0]!;
    if (Date.now() > deadline) throw new Error(`no request_log row for trace ${traceId} within 10 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('Deno worker runtime', () => {
  let stack: Stack;
  let mock: MockProvider;
  let deno: DenoProcess | undefined;
  let gatewayKey: { id: string; key: string };

  beforeAll(async () => {
    [stack, mock] = await Promise.all([startStack({ workers: 0 }), startMockProvider()]);
    gatewayKey = await stack.createKey({ name: 'deno-test', workspace_id: 'ws-default', scopes: ['completions.write'] });
    const started = Date.now();
    deno = await spawnDenoWorker(stack.controlPlane.grpcPort);
    if (process.env.GW_TEST_VERBOSE) console.log(`deno worker listening after ${Date.now() - started} ms`);
  }, START_TIMEOUT_MS + 10_000);

  afterAll(async () => {
    await deno?.stop();
    if (process.env.GW_TEST_VERBOSE) console.log(`deno worker exit: code ${deno?.child.exitCode}, signal ${deno?.child.signalCode}`);
    await mock?.close();
    await stack?.close();
  }, 30_000);

  const chat = (apiKey: string) =>
    fetch(`${deno!.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-gateway-api-key': apiKey,
        'x-gateway-provider': 'openai',
        authorization: `Bearer ${PROVIDER_KEY}`,
        'x-gateway-custom-host': mock.baseUrl,
      },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }] }),
    });

  it('serves a chat completion and reports its usage to the control plane', async () => {
    const res = await chat(gatewayKey.key);
    const body = (await res.json()) as { choices: { message: { content: string } }[] };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.choices[0]!.message.content).toBe('Hello world!');

    expect(mock.requests).toHaveLength(1);
    expect(mock.requests[0]!.path).toBe('/v1/chat/completions');
    expect(mock.requests[0]!.headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);

    const traceId = res.headers.get('x-gateway-trace-id');
    expect(traceId).toBeTruthy();
    const row = await waitForLogRow(stack, traceId!);
    expect(row.provider).toBe('openai');
    expect(Number(row.status)).toBe(200);
    expect(row.api_key_id).toBe(gatewayKey.id);
    expect([Number(row.prompt_tokens), Number(row.completion_tokens), Number(row.total_tokens)]).toEqual([11, 7, 18]);
  });

  it('refuses an unknown gateway key with 401 and an OpenAI-style error', async () => {
    const before = mock.requests.length;
    const res = await chat('gw-not-a-real-key-0000000000000000');
    expect(res.status).toBe(401);
    const body = (await res.json()) as { error: { message: string; type: string; code: string | null; param: unknown } };
    expect(body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    expect(typeof body.error.message).toBe('string');
    expect(body.error).toHaveProperty('param');
    expect(mock.requests.length).toBe(before);
  });
});
