import { describe, it, expect } from 'vitest';
import { effectiveKeySettings, organisationSettingsSchema, workspaceSettingsSchema } from '../../src/domain/tenancy-settings.ts';

describe('tenancy settings', () => {
  it('normalise weekly and monthly rotation periods to 7 and 30 days', () => {
    expect(workspaceSettingsSchema.parse({ user_api_key_rotation_period: 'weekly' }).user_api_key_rotation_period).toBe(7);
    expect(organisationSettingsSchema.parse({ user_api_key_rotation_period: 'monthly' }).user_api_key_rotation_period).toBe(30);
    expect(workspaceSettingsSchema.parse({ user_api_key_rotation_period: 90 }).user_api_key_rotation_period).toBe(90);
    expect(workspaceSettingsSchema.safeParse({ user_api_key_rotation_period: 366 }).success).toBe(false);
    expect(workspaceSettingsSchema.safeParse({ user_api_key_rotation_period: 'daily' }).success).toBe(false);
  });

  it('keep the default expiry within the maximum and reject organisation-only fields on workspaces', () => {
    expect(workspaceSettingsSchema.safeParse({ default_api_key_expiry_days: 31, max_api_key_expiry_days: 30 }).success).toBe(false);
    expect(workspaceSettingsSchema.safeParse({ default_workspace_user_api_key_auto_create: true }).success).toBe(false);
    expect(organisationSettingsSchema.safeParse({ default_workspace_user_api_key_auto_create: true }).success).toBe(true);
  });

  it('let workspace values override the organisation, and the default workspace follow the organisation-only switch', () => {
    const org = { user_api_key_rotation_period: 30, max_api_key_expiry_days: 365, user_api_key_auto_create: true, default_workspace_user_api_key_auto_create: false };
    expect(effectiveKeySettings(org, { user_api_key_rotation_period: 7 }, false)).toMatchObject({ rotationPeriodDays: 7, maxExpiryDays: 365, autoCreate: true });
    expect(effectiveKeySettings(org, {}, true).autoCreate).toBe(false);
    expect(effectiveKeySettings(org, null, false)).toMatchObject({ rotationPeriodDays: 30, autoCreateScopes: null });
  });
});
