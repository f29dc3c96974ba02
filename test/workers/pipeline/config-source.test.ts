import { describe, it, expect } from 'vitest';
import type { ResolvedKey } from '../../../src/domain/api-key.ts';
import { AppError } from '../../../src/domain/errors.ts';
import { ControlPlaneUnavailable } from '../../../workers/contracts.ts';
import { mayRetry, resolveConfig } from '../../../workers/pipeline/config-source.ts';
import { ResourceCache } from '../../../workers/sync/resource-cache.ts';

const key = (defaults: ResolvedKey['defaults'] = {}, workspaceId: string | null = 'ws-1'): ResolvedKey => ({
  id: 'k', organisationId: 'org-1', workspaceId, userId: null, type: 'workspace-service', status: 'active', scopes: [], expiresAt: null, rateLimits: [], usageLimits: null, defaults, version: 1,
});

function cache(entries: Record<string, Record<string, unknown>>, down = false) {
  const lookups: string[] = [];
  const c = new ResourceCache(
    {
      async resolveResource(type, k) {
        lookups.push(`${type}/${k}`);
        if (down) throw new ControlPlaneUnavailable();
        const p = entries[`${type}/${k}`];
        return p ? { version: 1, payload: p } : null;
      },
    },
    { ttlMs: 60_000, negativeTtlMs: 60_000, maxStaleMs: 0 },
  );
  return { c, lookups };
}

const codeOf = async (p: Promise<unknown>) => {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(AppError);
  return { status: (err as AppError).status, code: (err as AppError).code };
};

describe('resolveConfig', () => {
  it('no header and no key default: null without any lookup', async () => {
    const { c, lookups } = cache({});
    expect(await resolveConfig(null, key(), c)).toBeNull();
    expect(lookups).toEqual([]);
  });

  it('inline JSON is parsed (and validated) without a lookup', async () => {
    const { c, lookups } = cache({});
    const got = await resolveConfig('{"provider":"openai","api_key":"k"}', key(), c);
    expect(got?.config.provider).toBe('openai');
    expect(lookups).toEqual([]);
    expect(await codeOf(resolveConfig('{"retry":{"attempts":9}}', key(), c))).toMatchObject({ status: 400 });
  });

  it("a slug resolves in the key's workspace; the key default applies when the caller sends none", async () => {
    const saved = { id: 'c1', workspace_id: 'ws-1', version_id: 'v1', config: { provider: 'openai', api_key: 'k' } };
    const { c, lookups } = cache({ 'config/ws-1:prod': saved });
    expect((await resolveConfig('prod', key(), c))?.identity).toBe('c1@v1');
    expect((await resolveConfig(null, key({ config_id: 'prod' }), c))?.config.provider).toBe('openai');
    expect(lookups).toEqual(['config/ws-1:prod']);
  });

  it('refusals: override not allowed (403), unknown (400), organisation keys (400), control plane away (503)', async () => {
    const { c } = cache({});
    expect(await codeOf(resolveConfig('{"provider":"openai"}', key({ config_id: 'x', allow_config_override: false }), c))).toEqual({ status: 403, code: 'config_override_not_allowed' });
    expect(await codeOf(resolveConfig('nope', key(), c))).toEqual({ status: 400, code: 'config_not_found' });
    expect(await codeOf(resolveConfig('nope', key({}, null), c))).toEqual({ status: 400, code: 'workspace_required' });
    expect(await codeOf(resolveConfig('prod', key(), cache({}, true).c))).toEqual({ status: 503, code: 'control_plane_unavailable' });
    expect(await codeOf(resolveConfig('prod', key(), undefined))).toEqual({ status: 503, code: 'config_directory_unavailable' });
  });
});

describe('mayRetry (buffer a streamed body only when it may be sent twice)', () => {
  it('retries or a fallback with several targets, at any depth; single, loadbalance and conditional pick one', () => {
    expect(mayRetry({})).toBe(false);
    expect(mayRetry({ retry: { attempts: 1 } })).toBe(true);
    expect(mayRetry({ strategy: { mode: 'fallback' }, targets: [{}, {}] })).toBe(true);
    expect(mayRetry({ strategy: { mode: 'loadbalance' }, targets: [{}, {}] })).toBe(false);
    expect(mayRetry({ strategy: { mode: 'loadbalance' }, targets: [{ retry: { attempts: 2 } }, {}] })).toBe(true);
    expect(mayRetry({ strategy: { mode: 'conditional' }, targets: [{ strategy: { mode: 'fallback' }, targets: [{}, {}] }] })).toBe(true);
  });
});
