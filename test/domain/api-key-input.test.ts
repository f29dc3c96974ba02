import { describe, it, expect } from 'vitest';
import { createApiKeySchema } from '../../src/domain/api-key-input.ts';
import { AppError } from '../../src/domain/errors.ts';
import { parseWith } from '../../src/domain/validation.ts';

const future = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
const base = { name: 'app', scopes: ['completions.write'] };

function paramOf(input: unknown): string | null {
  try {
    parseWith(createApiKeySchema, input);
    return null;
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).status).toBe(400);
    return (e as AppError).param;
  }
}

describe('API key create request (spec table)', () => {
  it('accepts a full valid request and defaults allow_config_override to true', () => {
    const v = parseWith(createApiKeySchema, {
      ...base,
      description: 'd',
      organisation_id: '6a1f0c8e-8f4b-4a55-9b2a-2d6d8a1c9e01',
      workspace_id: 'ws-default',
      rate_limits: [{ type: 'requests', unit: 'rpm', value: 0 }, { type: 'tokens', unit: 'rpw', value: 100 }],
      usage_limits: { credit_limit: 10, type: 'cost', alert_threshold: 8, periodic_reset: 'monthly' },
      defaults: { metadata: { team: 'a' }, config_id: 'pc-1' },
      alert_emails: ['ops@example.com'],
      expires_at: future(30),
      rotation_policy: { rotation_period: 'weekly', key_transition_period_ms: 1_800_000 },
    });
    expect(v.defaults?.allow_config_override).toBe(true);
  });

  it.each([
    [{ scopes: ['x'] }, 'name'],
    [{ name: 'a' }, 'scopes'],
    [{ ...base, bogus: 1 }, 'bogus'],
    [{ ...base, organisation_id: 'not-a-uuid' }, 'organisation_id'],
    [{ ...base, user_id: '123' }, 'user_id'],
    [{ ...base, rate_limits: [{ type: 'calls', unit: 'rpm', value: 1 }] }, 'rate_limits[0].type'],
    [{ ...base, rate_limits: [{ type: 'requests', unit: 'rpy', value: 1 }] }, 'rate_limits[0].unit'],
    [{ ...base, rate_limits: [{ type: 'requests', unit: 'rpm', value: -1 }] }, 'rate_limits[0].value'],
    [{ ...base, rate_limits: [{ type: 'requests', unit: 'rpm', value: 1.5 }] }, 'rate_limits[0].value'],
    [{ ...base, rate_limits: [{ type: 'requests', unit: 'rpm' }] }, 'rate_limits[0].value'],
    [{ ...base, rate_limits: [{ type: 'requests', unit: 'rpm', value: 1 }, { type: 'requests', unit: 'rpm', value: 2 }] }, 'rate_limits[1]'],
    [{ ...base, usage_limits: { credit_limit: 0 } }, 'usage_limits.credit_limit'],
    [{ ...base, usage_limits: { type: 'requests' } }, 'usage_limits.type'],
    [{ ...base, usage_limits: { alert_threshold: 0 } }, 'usage_limits.alert_threshold'],
    [{ ...base, usage_limits: { periodic_reset: 'daily' } }, 'usage_limits.periodic_reset'],
    [{ ...base, usage_limits: { periodic_reset_days: 366 } }, 'usage_limits.periodic_reset_days'],
    [{ ...base, usage_limits: { periodic_reset: 'weekly', periodic_reset_days: 7 } }, 'usage_limits.periodic_reset_days'],
    [{ ...base, usage_limits: { next_usage_reset_at: 'tomorrow' } }, 'usage_limits.next_usage_reset_at'],
    [{ ...base, defaults: { allow_config_override: 'no' } }, 'defaults.allow_config_override'],
    [{ ...base, alert_emails: ['not-an-email'] }, 'alert_emails[0]'],
    [{ ...base, expires_at: '2020-01-01T00:00:00Z' }, 'expires_at'],
    [{ ...base, expires_at: 'soon' }, 'expires_at'],
    [{ ...base, rotation_policy: { rotation_period: 'daily' } }, 'rotation_policy.rotation_period'],
    [{ ...base, rotation_policy: { rotation_period: 'weekly', rotation_period_days: 7 } }, 'rotation_policy.rotation_period_days'],
    [{ ...base, rotation_policy: { rotation_period_days: 0 } }, 'rotation_policy.rotation_period_days'],
    [{ ...base, rotation_policy: { rotation_period_days: 366 } }, 'rotation_policy.rotation_period_days'],
    [{ ...base, rotation_policy: { key_transition_period_ms: 1_800_000 } }, 'rotation_policy.rotation_period'],
    [{ ...base, rotation_policy: { rotation_period: 'weekly', key_transition_period_ms: 1_799_999 } }, 'rotation_policy.key_transition_period_ms'],
    [{ ...base, rotation_policy: { rotation_period_days: 1, key_transition_period_ms: 86_400_000 } }, 'rotation_policy.key_transition_period_ms'],
    [{ ...base, rotation_policy: { next_rotation_at: '2020-01-01T00:00:00Z' } }, 'rotation_policy.next_rotation_at'],
  ])('rejects %j naming %s', (input, param) => {
    expect(paramOf(input)).toBe(param);
  });

  it('accepts the boundary values of the spec limits', () => {
    expect(paramOf({ ...base, rate_limits: [{ type: 'tokens', unit: 'rps', value: 0 }] })).toBeNull();
    expect(paramOf({ ...base, usage_limits: { credit_limit: 1, alert_threshold: 1, periodic_reset_days: 365 } })).toBeNull();
    expect(paramOf({ ...base, rotation_policy: { rotation_period_days: 365, key_transition_period_ms: 1_800_000 } })).toBeNull();
    expect(paramOf({ ...base, rotation_policy: { next_rotation_at: future(3) } })).toBeNull();
    expect(paramOf({ ...base, rate_limits: null, usage_limits: null, rotation_policy: null, expires_at: null })).toBeNull();
  });
});
