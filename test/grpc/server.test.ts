import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { protoPath as healthProto } from 'grpc-health-check';
import * as protoLoader from '@grpc/proto-loader';
import { hashApiKey } from '../../src/domain/api-key-secret.ts';
import type { UsageBatch, UsageRecord } from '../../src/domain/usage-record.ts';
import { workerSyncService, workerTokenMetadata } from '../../src/platform/grpc-contract.ts';
import { startStack, TEST_WORKER_TOKEN, type Stack } from '../support/stack.ts';

let stack: Stack;
let client: any;

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  const Service = workerSyncService();
  client = new Service(`127.0.0.1:${stack.controlPlane.grpcPort}`, grpc.credentials.createInsecure());
});
afterAll(async () => {
  client?.close();
  await stack?.close();
});

const resolveKey = (hash: string, token = TEST_WORKER_TOKEN) =>
  new Promise<any>((resolve, reject) => client.ResolveKey({ key_hash: hash }, workerTokenMetadata(token), (err: any, res: any) => (err ? reject(err) : resolve(res))));

const record = (id: string, over: Partial<UsageRecord> = {}): UsageRecord => ({
  idempotency_id: `${id}:0`, request_id: id, attempt: 0, trace_id: `trace-${id}`, organisation_id: stack.organisationId,
  workspace_id: stack.workspaceId, api_key_id: '', provider: 'openai', model: 'gpt-4o-mini', endpoint: 'chat.completions',
  method: 'POST', status: 200, started_at_ms: Date.now(), latency_ms: 12, upstream_latency_ms: 10, prompt_tokens: 3,
  completion_tokens: 4, total_tokens: 7, is_stream: false, error_code: '', metadata_json: '{"team":"a"}', ...over,
});

function report(batches: UsageBatch[], token = TEST_WORKER_TOKEN): Promise<{ acks: any[]; error?: grpc.ServiceError }> {
  return new Promise((resolve) => {
    const call = client.Report(workerTokenMetadata(token));
    const acks: any[] = [];
    call.on('data', (a: any) => {
      acks.push(a);
      if (acks.length === batches.length) call.end();
    });
    call.on('error', (error: grpc.ServiceError) => resolve({ acks, error }));
    call.on('end', () => resolve({ acks }));
    for (const b of batches) call.write(b);
  });
}

describe('WorkerSync gRPC service', () => {
  it('resolves a key by hash with its workspace, scopes, status, expiry, limits and version', async () => {
    const expires = new Date(Date.now() + 86_400_000).toISOString();
    const { key } = await stack.createKey({
      name: 'g', workspace_id: 'ws-default', scopes: ['completions.write'], expires_at: expires,
      rate_limits: [{ type: 'requests', unit: 'rpm', value: 60 }], usage_limits: { credit_limit: 5, type: 'cost' },
      defaults: { metadata: { env: 'prod' } },
    });
    const res = await resolveKey(await hashApiKey(key));
    expect(res.found).toBe(true);
    expect(res.version).toBeGreaterThan(0);
    expect(res.key).toMatchObject({
      workspace_id: stack.workspaceId, organisation_id: stack.organisationId, type: 'workspace-service', status: 'active',
      scopes: ['completions.write'], expires_at_ms: Date.parse(expires), rate_limits: [{ type: 'requests', unit: 'rpm', value: 60 }],
    });
    expect(res.key.usage_limits).toMatchObject({ present: true, credit_limit: 5, type: 'cost' });
    expect(JSON.parse(res.key.defaults_json)).toEqual({ metadata: { env: 'prod' }, allow_config_override: true });
  });

  it('answers found=false for unknown hashes and refuses a wrong worker token', async () => {
    expect((await resolveKey('0'.repeat(64))).found).toBe(false);
    await expect(resolveKey('0'.repeat(64), 'wrong-token-wrong-token')).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
  });

  it('stores each usage record once, acknowledging batches after they are stored', async () => {
    const b1: UsageBatch = { batch_id: 'b1', records: [record('r1'), record('r2')] };
    const first = await report([b1]);
    expect(first.acks).toEqual([{ batch_id: 'b1', stored: 2, duplicates: 0, rejected: 0 }]);
    // The same batch resent after a reconnect, plus one new record.
    const second = await report([b1, { batch_id: 'b2', records: [record('r2'), record('r3')] }]);
    expect(second.acks).toEqual([
      { batch_id: 'b1', stored: 0, duplicates: 2, rejected: 0 },
      { batch_id: 'b2', stored: 1, duplicates: 1, rejected: 0 },
    ]);
    const rows = await stack.db.orm.em.getConnection().execute("select request_id, total_tokens, metadata from request_log where request_id in ('r1','r2','r3') order by request_id");
    expect(rows).toEqual([
      { request_id: 'r1', total_tokens: 7, metadata: { team: 'a' } },
      { request_id: 'r2', total_tokens: 7, metadata: { team: 'a' } },
      { request_id: 'r3', total_tokens: 7, metadata: { team: 'a' } },
    ]);
  });

  it('counts malformed records as rejected instead of dropping them silently', async () => {
    const r = await report([{ batch_id: 'bad', records: [record('r9', { organisation_id: 'nope' })] }]);
    expect(r.acks).toEqual([{ batch_id: 'bad', stored: 0, duplicates: 0, rejected: 1 }]);
  });

  it('refuses a Report stream with a wrong worker token', async () => {
    const r = await report([{ batch_id: 'x', records: [record('rx')] }], 'wrong-token-wrong-token');
    expect(r.error?.code).toBe(grpc.status.UNAUTHENTICATED);
  });

  it('serves the gRPC health service', async () => {
    const def = protoLoader.loadSync(healthProto, { keepCase: true, defaults: true, enums: String });
    const Health = (grpc.loadPackageDefinition(def) as any).grpc.health.v1.Health;
    const h = new Health(`127.0.0.1:${stack.controlPlane.grpcPort}`, grpc.credentials.createInsecure());
    const res = await new Promise<any>((resolve, reject) => h.check({ service: 'gateway.sync.v1.WorkerSync' }, (e: any, r: any) => (e ? reject(e) : resolve(r))));
    expect(res.status).toBe('SERVING');
    h.close();
  });
});
