import { describe, it, expect } from 'vitest';
import type { ResolvedKey } from '../../src/domain/api-key.ts';
import { keyFromWire, keyToWire } from '../../src/domain/sync-codec.ts';

describe('sync codec', () => {
  it('round-trips a key through the wire shape', () => {
    const key: ResolvedKey = {
      id: 'k1', organisationId: 'o1', workspaceId: 'w1', userId: null, type: 'workspace-service', status: 'active',
      scopes: ['completions.write'], expiresAt: 1_900_000_000_000,
      rateLimits: [{ type: 'requests', unit: 'rpm', value: 100 }],
      usageLimits: { credit_limit: 5, type: 'cost', alert_threshold: null, periodic_reset: 'monthly', periodic_reset_days: null, next_usage_reset_at: null },
      defaults: { metadata: { team: 'x' }, allow_config_override: false }, version: 42,
    };
    expect(keyFromWire(keyToWire(key))).toEqual(key);
  });

  it('maps absent values to null and not-found to null', () => {
    const key: ResolvedKey = {
      id: 'k', organisationId: 'o', workspaceId: null, userId: null, type: 'organisation-service', status: 'active',
      scopes: [], expiresAt: null, rateLimits: [], usageLimits: null, defaults: {}, version: 1,
    };
    expect(keyFromWire(keyToWire(key))).toEqual(key);
    expect(keyFromWire({ found: false, key: null, version: 0 })).toBeNull();
  });
});
