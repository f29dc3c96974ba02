// Issue 8 item 3: a hand reset of a key's usage (`reset_usage: true` stores last_reset_at) reaches
// the worker over the wire and starts a fresh budget counter, so an exhausted key is served again.
import { describe, it, expect } from 'vitest';
import type { ResolvedKey } from '../../../src/domain/api-key.ts';
import { MemoryLimitStore } from '../../../src/domain/limits/memory-limit-store.ts';
import { keyFromWire, keyToWire } from '../../../src/domain/sync-codec.ts';
import { workerSyncPackageDefinition } from '../../../src/platform/grpc-contract.ts';
import { admit } from '../../../workers/limits/admission.ts';
import { keyChecks } from '../../../workers/limits/key-checks.ts';

const key = (usage: ResolvedKey['usageLimits']): ResolvedKey => ({
  id: crypto.randomUUID(), organisationId: crypto.randomUUID(), workspaceId: crypto.randomUUID(), userId: null, type: 'workspace-service', status: 'active',
  scopes: [], expiresAt: null, rateLimits: [], usageLimits: usage, defaults: {}, version: 3,
});

describe('key usage reset', () => {
  it('carries last_reset_at through the gRPC wire, and only when set', () => {
    const type = workerSyncPackageDefinition()['gateway.sync.v1.ResolveKeyResponse'] as unknown as { serialize(v: unknown): Buffer; deserialize(b: Buffer): any };
    const reset = key({ credit_limit: 5, type: 'tokens', last_reset_at: '2026-11-22T10:00:00.000Z' });
    expect(keyFromWire(type.deserialize(type.serialize(keyToWire(reset))))!.usageLimits).toMatchObject({ credit_limit: 5, last_reset_at: '2026-11-22T10:00:00.000Z' });
    const never = key({ credit_limit: 5, type: 'tokens' });
    expect(keyFromWire(type.deserialize(type.serialize(keyToWire(never))))!.usageLimits).not.toHaveProperty('last_reset_at');
  });

  it('an exhausted key budget is served again after a hand reset', async () => {
    const store = new MemoryLimitStore();
    const k = key({ credit_limit: 100, type: 'tokens' });
    const now = Date.now();
    await admit(store, keyChecks(k, { tokens: 100, cost: null }, now));
    await expect(admit(store, keyChecks(k, { tokens: 1, cost: null }, now))).rejects.toMatchObject({ code: 'usage_limit_exceeded' });
    const afterReset = { ...k, usageLimits: { ...k.usageLimits, last_reset_at: new Date(now).toISOString() } };
    await expect(admit(store, keyChecks(afterReset, { tokens: 1, cost: null }, now))).resolves.toBeTruthy();
  });
});
