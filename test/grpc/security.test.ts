// Worker ↔ control plane security (issue 5 items 7–8): worker token rotation with two valid tokens,
// TLS on the gRPC channel (self-signed certificate made here), no secrets in logs, and reflection.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/domain/api-key-secret.ts';
import type { Logger } from '../../src/domain/logger.ts';
import { ConfigError, loadControlPlaneEnv, loadWorkerEnv } from '../../src/platform/env.ts';
import { workerSyncService, workerTokenMetadata } from '../../src/platform/grpc-contract.ts';
import { ControlPlaneUnavailable } from '../../workers/contracts.ts';
import { GrpcControlPlane, type ControlPlaneTls } from '../../workers/runtime/grpc-control-plane.ts';
import { workerSettingsFromEnv } from '../../workers/runtime/settings.ts';
import { startMockProvider, type MockProvider } from '../support/mock-provider.ts';
import { startStack, TEST_WORKER_TOKEN, type Stack } from '../support/stack.ts';

const OLD_TOKEN = 'old-worker-token-0123456789abcdef';
const NEW_TOKEN = 'new-worker-token-fedcba9876543210';
const PROVIDER_KEY = 'sk-provider-secret-never-logged-42';

const links: GrpcControlPlane[] = [];
function link(grpcPort: number, workerToken: string, tls?: ControlPlaneTls, host = '127.0.0.1'): GrpcControlPlane {
  const l = new GrpcControlPlane({ target: `${host}:${grpcPort}`, workerToken, tls, resolveTimeoutMs: 5_000 });
  links.push(l);
  return l;
}

/** One line per log call: level, message and fields, as the JSON logger would write them. */
function capturingLogger(lines: string[], component: string): Logger {
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => void lines.push(JSON.stringify({ level, component, msg, ...fields }));
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

afterAll(() => {
  for (const l of links) l.close();
});

describe('worker token rotation (WORKER_TOKEN + WORKER_TOKEN_PREVIOUS)', () => {
  let stack: Stack;
  const lines: string[] = [];
  let mock: MockProvider;

  beforeAll(async () => {
    stack = await startStack({
      workers: 0,
      workerToken: NEW_TOKEN,
      previousWorkerToken: OLD_TOKEN,
      logger: capturingLogger(lines, 'control-plane'),
      workerLogger: capturingLogger(lines, 'worker'),
    });
    mock = await startMockProvider();
  });
  afterAll(async () => {
    await mock?.close();
    await stack?.close();
  });

  it('accepts workers on the old and on the new token; once PREVIOUS is dropped the old one is UNAUTHENTICATED', async () => {
    const { key, id } = await stack.createKey({ name: 'rot', workspace_id: 'ws-default', scopes: ['completions.write'] });
    const hash = await hashApiKey(key);
    expect((await link(stack.controlPlane.grpcPort, OLD_TOKEN).resolveKey(hash))?.id).toBe(id);
    expect((await link(stack.controlPlane.grpcPort, NEW_TOKEN).resolveKey(hash))?.id).toBe(id);
    await expect(link(stack.controlPlane.grpcPort, 'some-other-token-0123456789').resolveKey(hash)).rejects.toThrow(/refused the worker token/);

    // The control plane rolled with WORKER_TOKEN_PREVIOUS removed.
    const rolled = await stack.startReplica({ previousWorkerToken: null });
    expect((await link(rolled.grpcPort, NEW_TOKEN).resolveKey(hash))?.id).toBe(id);
    await expect(link(rolled.grpcPort, OLD_TOKEN).resolveKey(hash)).rejects.toThrow(/refused the worker token/);
    const raw = new (workerSyncService())(`127.0.0.1:${rolled.grpcPort}`, grpc.credentials.createInsecure());
    const err = await new Promise<grpc.ServiceError | null>((resolve) =>
      (raw as any).ResolveKey({ key_hash: hash }, workerTokenMetadata(OLD_TOKEN), (e: grpc.ServiceError | null) => resolve(e)),
    );
    raw.close();
    expect(err?.code).toBe(grpc.status.UNAUTHENTICATED);
  });

  it('never writes raw API keys, the worker token or the provider key to the logs (debug level)', async () => {
    const worker = await stack.startWorker({ workerToken: OLD_TOKEN, logLevel: 'debug' });
    const badKey = 'gwbadkey0123456789abcdefghijklmnopqrstuvwxyz';
    const chat = (apiKey: string) =>
      fetch(`${worker.url}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          'x-gateway-api-key': apiKey,
          'x-gateway-provider': 'openai',
          authorization: `Bearer ${PROVIDER_KEY}`,
          'x-gateway-custom-host': mock.baseUrl,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
    expect((await chat(badKey)).status).toBe(401);
    const { key } = await stack.createKey({ name: 'logged?', workspace_id: 'ws-default', scopes: ['completions.write'] });
    const ok = await chat(key);
    expect(ok.status).toBe(200);
    await ok.text();
    expect(mock.requests.at(-1)?.headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
    // The usage record reaches the control plane (more log lines on both sides).
    for (let i = 0; i < 200 && worker.reporter.snapshot().acknowledged < 1; i++) await new Promise((r) => setTimeout(r, 25));
    expect(worker.reporter.snapshot().acknowledged).toBeGreaterThanOrEqual(1);

    expect(lines.some((l) => l.includes('"component":"worker"'))).toBe(true);
    expect(lines.some((l) => l.includes('"component":"control-plane"'))).toBe(true);
    const secrets = { badKey, key, adminKey: stack.adminKey, OLD_TOKEN, NEW_TOKEN, PROVIDER_KEY };
    for (const [name, secret] of Object.entries(secrets)) {
      const leaked = lines.filter((l) => l.includes(secret));
      expect(leaked, `${name} appears in the logs`).toEqual([]);
    }
  });

  it('serves gRPC reflection listing WorkerSync and the health service', async () => {
    const proto = fileURLToPath(new URL('../../node_modules/@grpc/reflection/build/proto/grpc/reflection/v1alpha/reflection.proto', import.meta.url));
    const def = protoLoader.loadSync(proto, { keepCase: true, defaults: true, oneofs: true });
    const Reflection = (grpc.loadPackageDefinition(def) as any).grpc.reflection.v1alpha.ServerReflection;
    const client = new Reflection(`127.0.0.1:${stack.controlPlane.grpcPort}`, grpc.credentials.createInsecure());
    const names = await new Promise<string[]>((resolve, reject) => {
      const call = client.ServerReflectionInfo();
      call.on('data', (res: any) => {
        resolve((res.list_services_response?.service ?? []).map((s: { name: string }) => s.name));
        call.end();
      });
      call.on('error', reject);
      call.write({ list_services: '' });
    });
    client.close();
    expect(names).toEqual(expect.arrayContaining(['gateway.sync.v1.WorkerSync', 'grpc.health.v1.Health']));
  });
});

describe('TLS on the gRPC channel', () => {
  let stack: Stack;
  let dir: string;
  let ca: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-tls-'));
    execFileSync('/usr/bin/openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost',
      '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    ca = readFileSync(join(dir, 'cert.pem'), 'utf8');
    stack = await startStack({
      workers: 0,
      grpcTls: { certChain: readFileSync(join(dir, 'cert.pem')), privateKey: readFileSync(join(dir, 'key.pem')) },
    });
  });
  afterAll(async () => {
    await stack?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('resolves a key over TLS when the worker trusts the certificate, also under a server-name override', async () => {
    const { key, id } = await stack.createKey({ name: 'tls', workspace_id: 'ws-default', scopes: ['completions.write'] });
    const hash = await hashApiKey(key);
    expect((await link(stack.controlPlane.grpcPort, TEST_WORKER_TOKEN, { ca }).resolveKey(hash))?.id).toBe(id);
    // Dialled by IP, checked against the certificate as "localhost" (grpc.ssl_target_name_override).
    const aliased = link(stack.controlPlane.grpcPort, TEST_WORKER_TOKEN, { ca, serverName: 'localhost' }, '127.0.0.1');
    expect((await aliased.resolveKey(hash))?.id).toBe(id);
  });

  it('a full worker reads CONTROL_PLANE_CA_FILE, connects its Watch stream over TLS and is ready', async () => {
    const settings = workerSettingsFromEnv(
      loadWorkerEnv({
        CONTROL_PLANE_GRPC_URL: `localhost:${stack.controlPlane.grpcPort}`,
        WORKER_TOKEN: TEST_WORKER_TOKEN,
        CONTROL_PLANE_TLS: 'true',
        CONTROL_PLANE_CA_FILE: join(dir, 'cert.pem'),
      }),
      (p) => readFileSync(p, 'utf8'),
    );
    expect(settings.controlPlaneTls).toEqual({ ca, serverName: undefined });
    const worker = await stack.startWorker({ controlPlaneTarget: settings.controlPlaneTarget, controlPlaneTls: settings.controlPlaneTls });
    let res = await fetch(`${worker.url}/ready`);
    for (let i = 0; i < 200 && res.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 25));
      res = await fetch(`${worker.url}/ready`);
    }
    expect(res.status).toBe(200);
    expect(worker.watcher.snapshot().connected).toBe(true);
  });

  it('refuses a plaintext worker (unavailable) and a TLS worker that does not trust the certificate', async () => {
    const hash = '0'.repeat(64);
    const plain = link(stack.controlPlane.grpcPort, TEST_WORKER_TOKEN);
    await expect(plain.resolveKey(hash)).rejects.toBeInstanceOf(ControlPlaneUnavailable);
    expect(plain.state.firstContact).toBeNull();

    const untrusting = link(stack.controlPlane.grpcPort, TEST_WORKER_TOKEN, {});
    const err = await untrusting.resolveKey(hash).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(ControlPlaneUnavailable);
    expect(String((err as Error).message)).toMatch(/certificate|self.signed|handshake|SSL|TLS/i);
    expect(untrusting.state.firstContact).toBeNull();
  });
});

describe('TLS and token settings', () => {
  const cpBase = { DATABASE_URL: 'postgres://u:p@localhost/db', WORKER_TOKEN: NEW_TOKEN, GATEWAY_SECRET_KEY: Buffer.alloc(32, 1).toString('base64') };

  it('takes GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE together only, naming the missing one', () => {
    expect(() => loadControlPlaneEnv({ ...cpBase, GRPC_TLS_CERT_FILE: '/x/cert.pem' })).toThrow(ConfigError);
    expect(() => loadControlPlaneEnv({ ...cpBase, GRPC_TLS_CERT_FILE: '/x/cert.pem' })).toThrow(/GRPC_TLS_KEY_FILE: .*both or neither/);
    expect(() => loadControlPlaneEnv({ ...cpBase, GRPC_TLS_KEY_FILE: '/x/key.pem' })).toThrow(/GRPC_TLS_CERT_FILE: .*both or neither/);
    const env = loadControlPlaneEnv({ ...cpBase, GRPC_TLS_CERT_FILE: '/x/c', GRPC_TLS_KEY_FILE: '/x/k', WORKER_TOKEN_PREVIOUS: OLD_TOKEN });
    expect([env.GRPC_TLS_CERT_FILE, env.GRPC_TLS_KEY_FILE, env.WORKER_TOKEN_PREVIOUS]).toEqual(['/x/c', '/x/k', OLD_TOKEN]);
    expect(() => loadControlPlaneEnv({ ...cpBase, WORKER_TOKEN_PREVIOUS: 'short' })).toThrow(/WORKER_TOKEN_PREVIOUS: must be at least 16/);
  });

  it('worker TLS defaults off; the CA file and server name need CONTROL_PLANE_TLS=true', () => {
    const base = { CONTROL_PLANE_GRPC_URL: 'cp:50051', WORKER_TOKEN: NEW_TOKEN };
    expect(workerSettingsFromEnv(loadWorkerEnv(base)).controlPlaneTls).toBeNull();
    expect(() => loadWorkerEnv({ ...base, CONTROL_PLANE_CA_FILE: '/x/ca.pem' })).toThrow(/CONTROL_PLANE_CA_FILE: needs CONTROL_PLANE_TLS=true/);
    expect(workerSettingsFromEnv(loadWorkerEnv({ ...base, CONTROL_PLANE_TLS: 'true', CONTROL_PLANE_TLS_SERVER_NAME: 'cp.internal' })).controlPlaneTls).toEqual({
      ca: undefined,
      serverName: 'cp.internal',
    });
    expect(() => workerSettingsFromEnv(loadWorkerEnv({ ...base, CONTROL_PLANE_TLS: 'true', CONTROL_PLANE_CA_FILE: '/nope/ca.pem' }), (p) => readFileSync(p, 'utf8'))).toThrow(
      /CONTROL_PLANE_CA_FILE: cannot read \/nope\/ca.pem/,
    );
  });
});
