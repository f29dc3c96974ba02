import { describe, it, expect } from 'vitest';
import { REDACTED, redactSecrets } from '../../src/domain/redact.ts';

describe('redactSecrets', () => {
  it('removes secret-looking fields at any depth and keeps the rest', () => {
    const out = redactSecrets({
      name: 'a',
      key: 'sk-123',
      api_key: 'x',
      nested: { oauth_client_secret: 's', password: 'p', token: 't', Authorization: 'Bearer z', region: 'eu' },
      list: [{ secret: 's' }],
      rotation_policy: { key_transition_period_ms: 1_800_000 },
    });
    expect(out).toEqual({
      name: 'a',
      key: REDACTED,
      api_key: REDACTED,
      nested: { oauth_client_secret: REDACTED, password: REDACTED, token: REDACTED, Authorization: REDACTED, region: 'eu' },
      list: [{ secret: REDACTED }],
      rotation_policy: { key_transition_period_ms: 1_800_000 },
    });
  });
});
