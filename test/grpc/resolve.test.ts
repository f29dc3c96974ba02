// WorkerSync.Resolve and Watch for resources other than keys (issue 5 item 1, issue 4 item 10):
// saved configs resolved by id and by `<workspace_id>:<slug>`, changes pushed with the resource,
// deletes, answers about held resources on (re)subscribe, and worker-token auth.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { ResourceEvent } from '../../src/domain/sync-codec.ts';
import { GrpcControlPlane } from '../../workers/runtime/grpc-control-plane.ts';
import { startStack, TEST_WORKER_TOKEN, type Stack } from '../support/stack.ts';
import type { NodeWorker } from '../../workers/runtime/node.ts';

let stack: Stack;
let worker: NodeWorker;
const links: GrpcControlPlane[] = [];
const sql = <T = any>(q: string, p: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, p);

async function rest(method: string, path: string, body?: unknown) {
  const res = await fetch(`${stack.controlPlane.httpUrl}${path}`, {
    method,
    headers: { 'x-gateway-api-key': stack.adminKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

let seq = 0;
async function makeConfig(config: Record<string, unknown>) {
  const r = await rest('POST', '/v1/configs', { name: `Resolve ${++seq}`, config, workspace_id: stack.workspaceId });
  expect(r.status).toBe(200);
  const [row] = await sql<{ slug: string; workspace_id: string }>('select slug, workspace_id from config where id = ?', [r.body.data.id]);
  return { id: r.body.data.id as string, slug: row!.slug, workspaceId: row!.workspace_id };
}

function link(token = TEST_WORKER_TOKEN) {
  const l = new GrpcControlPlane({ target: `127.0.0.1:${stack.controlPlane.grpcPort}`, workerToken: token });
  links.push(l);
  return l;
}

async function until<T>(read: () => Promise<T> | T, ok: (v: T) => boolean, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  // A TTL far beyond the test: any change the worker sees came through Watch.
  worker = await stack.startWorker({ keyCacheTtlMs: 600_000 });
});
afterAll(async () => {
  for (const l of links) l.close();
  await stack?.close();
});

describe('Resolve', () => {
  it('answers a saved config by id and by workspace and slug, with its body and a version', async () => {
    const cfg = await makeConfig({ strategy: { mode: 'fallback' }, targets: [{ provider: 'openai' }, { provider: 'anthropic' }] });
    const l = link();
    const byId = await l.resolveResource('config', cfg.id);
    const bySlug = await l.resolveResource('config', `${cfg.workspaceId}:${cfg.slug}`);
    for (const r of [byId, bySlug]) {
      expect(r).not.toBeNull();
      expect(r!.version).toBeGreaterThan(0);
      expect(r!.payload).toMatchObject({ id: cfg.id, slug: cfg.slug, workspace_id: cfg.workspaceId, version: 1 });
      expect((r!.payload.config as any).strategy).toEqual({ mode: 'fallback' });
    }
  });

  it('answers null for unknown keys, deleted configs and types workers do not resolve', async () => {
    const l = link();
    expect(await l.resolveResource('config', '00000000-0000-4000-8000-000000000000')).toBeNull();
    expect(await l.resolveResource('config', 'not-a-key')).toBeNull();
    expect(await l.resolveResource('no_such_type', 'x')).toBeNull();
    const cfg = await makeConfig({ retry: { attempts: 1 } });
    expect(await l.resolveResource('config', cfg.id)).not.toBeNull();
    expect((await rest('DELETE', `/v1/configs/${cfg.id}`)).status).toBe(200);
    expect(await l.resolveResource('config', cfg.id)).toBeNull();
  });

  it('refuses a worker without the worker token', async () => {
    await expect(link('wrong-token-0123456789').resolveResource('config', 'x')).rejects.toThrow(/worker token/);
  });
});

describe('Watch for configs', () => {
  it('pushes an update with the new body to a worker holding the config, then a delete', async () => {
    const cfg = await makeConfig({ retry: { attempts: 1 } });
    const first = await worker.resources.get('config', cfg.id);
    expect((first!.payload.config as any).retry).toEqual({ attempts: 1 });

    expect((await rest('PUT', `/v1/configs/${cfg.id}`, { config: { retry: { attempts: 4 } } })).status).toBe(200);
    const updated = await until(() => worker.resources.get('config', cfg.id), (r) => (r?.payload.config as any)?.retry?.attempts === 4);
    expect(updated!.version).toBeGreaterThan(first!.version);
    expect(updated!.payload.version).toBe(2);

    expect((await rest('DELETE', `/v1/configs/${cfg.id}`)).status).toBe(200);
    await until(() => worker.resources.get('config', cfg.id), (r) => r === null);
  });

  it('answers a resubscribing worker about a held config that changed while it was away', async () => {
    const cfg = await makeConfig({ retry: { attempts: 2 } });
    const l = link();
    const held = (await l.resolveResource('config', cfg.id))!;
    expect((await rest('PUT', `/v1/configs/${cfg.id}`, { config: { retry: { attempts: 3 } } })).status).toBe(200);
    const v = (await sql<{ v: string }>('select max(version)::text as v from resource_change'))[0]!.v;
    const events: ResourceEvent[] = [];
    const stream = l.watch(
      { workerId: 'resubscriber', sinceVersion: Number(v), held: [{ type: 'config', key: cfg.id, version: held.version }] },
      { onOpen() {}, onEvent: (e) => events.push(e), onClose() {} },
    );
    try {
      const answer = await until(() => events.find((e) => e.resourceType === 'config' && e.resourceKey === cfg.id), (e) => e !== undefined);
      expect(answer!.action).toBe('upsert');
      expect((answer!.resource!.payload.config as any).retry).toEqual({ attempts: 3 });
      expect(answer!.resource!.version).toBeGreaterThan(held.version);
    } finally {
      stream.end();
    }
  });
});

describe('Resolve and Watch for providers', () => {
  it('hands a worker the provider by workspace and slug with its credentials decrypted, and pushes a key rotation', async () => {
    const integ = await rest('POST', '/v1/integrations', { name: 'Resolve OpenAI', ai_provider_id: 'openai', key: 'sk-resolve-secret-aaaaaaaa' });
    expect(integ.status).toBe(200);
    expect((await rest('PUT', `/v1/integrations/${integ.body.slug}/workspaces`, { workspaces: [{ id: stack.workspaceId, enabled: true }], create_default_provider: false })).status).toBe(200);
    const created = await rest('POST', '/v1/providers', { name: 'Resolve Team', slug: 'resolve-team', integration_id: integ.body.slug, workspace_id: stack.workspaceId });
    expect(created.status).toBe(200);
    const key = `${stack.workspaceId}:resolve-team`;
    const first = await worker.resources.get('provider', key);
    expect(first).not.toBeNull();
    expect(JSON.stringify(first!.payload)).toContain('sk-resolve-secret-aaaaaaaa');
    expect(await link().resolveResource('provider', `${stack.workspaceId}:no-such-provider`)).toBeNull();

    expect((await rest('PUT', `/v1/integrations/${integ.body.slug}`, { key: 'sk-resolve-secret-bbbbbbbb' })).status).toBe(200);
    const rotated = await until(() => worker.resources.get('provider', key), (r) => JSON.stringify(r?.payload ?? {}).includes('sk-resolve-secret-bbbbbbbb'));
    expect(rotated!.version).toBeGreaterThan(first!.version);
    expect(JSON.stringify(rotated!.payload)).not.toContain('aaaaaaaa');
  });

  it('hands a worker the organisation policy set', async () => {
    const created = await rest('POST', '/v2/policies/rate-limits', { name: 'Resolve RL', workspace_id: stack.workspaceId, type: 'requests', unit: 'rpm', value: 10, conditions: [{ key: 'workspace_id', value: stack.workspaceId }], group_by: [{ key: 'api_key' }] });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const set = await until(() => link().resolveResource('policy_set', stack.organisationId), (r) => JSON.stringify(r?.payload ?? {}).includes(created.body.id));
    expect(set!.version).toBeGreaterThan(0);
  });
});

describe('secret references in provider credentials', () => {
  it('resolves a secret mapping when the credentials go to a worker, and marks the provider unavailable when it cannot', async () => {
    process.env.SECRETREF_RESOLVE_TEST = 'sk-from-env-reference';
    const ref = await rest('POST', '/v1/secret-references', { name: 'Resolve env', manager_type: 'env', auth_config: {}, secret_path: 'SECRETREF_RESOLVE_TEST', allow_all_workspaces: true });
    expect(ref.status, JSON.stringify(ref.body)).toBe(200);
    const integ = await rest('POST', '/v1/integrations', {
      name: 'Mapped OpenAI',
      ai_provider_id: 'openai',
      secret_mappings: [{ target_field: 'key', secret_reference_id: ref.body.slug ?? ref.body.id }],
    });
    expect(integ.status, JSON.stringify(integ.body)).toBe(200);
    await rest('PUT', `/v1/integrations/${integ.body.slug}/workspaces`, { workspaces: [{ id: stack.workspaceId, enabled: true }], create_default_provider: false });
    expect((await rest('POST', '/v1/providers', { name: 'Mapped', slug: 'mapped', integration_id: integ.body.slug, workspace_id: stack.workspaceId })).status).toBe(200);
    const got = await link().resolveResource('provider', `${stack.workspaceId}:mapped`);
    expect(got!.payload, JSON.stringify(got!.payload)).toMatchObject({ status: 'active', credentials: { apiKey: 'sk-from-env-reference' } });

    delete process.env.SECRETREF_RESOLVE_TEST;
    const gone = await link().resolveResource('provider', `${stack.workspaceId}:mapped`);
    expect(gone!.payload.status).toBe('unavailable');
    expect(String(gone!.payload.status_reason)).toMatch(/SECRETREF_RESOLVE_TEST/);
    expect(JSON.stringify(gone!.payload)).not.toContain('sk-from-env-reference');
  });
});

describe('Resolve and Watch for workspace settings', () => {
  it('serves block_inline_config and the default config, and pushes their changes', async () => {
    const key = stack.workspaceId;
    const first = await worker.resources.get('workspace', key);
    expect(first!.payload).toMatchObject({ id: key, block_inline_config: false });

    const put = await rest('PUT', '/v1/admin/organisation/settings', { block_inline_config: true });
    expect([put.status, put.body.block_inline_config]).toEqual([200, true]);
    expect((await rest('GET', '/v1/admin/organisation/settings')).body.block_inline_config).toBe(true);
    await until(() => worker.resources.get('workspace', key), (r) => r?.payload.block_inline_config === true);

    const created = await rest('POST', '/v1/configs', { name: 'Workspace default', config: { retry: { attempts: 1 } }, isDefault: 1, workspace_id: stack.workspaceId });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    await until(() => worker.resources.get('workspace', key), (r) => r?.payload.default_config_id === created.body.data.id);

    expect((await rest('PUT', '/v1/admin/organisation/settings', { block_inline_config: false })).status).toBe(200);
    await until(() => worker.resources.get('workspace', key), (r) => r?.payload.block_inline_config === false);
  });

  it('refuses a non-boolean block_inline_config naming the field', async () => {
    const r = await rest('PUT', '/v1/admin/organisation/settings', { block_inline_config: 'yes' });
    expect([r.status, r.body.error.param]).toEqual([400, 'block_inline_config']);
  });
});
