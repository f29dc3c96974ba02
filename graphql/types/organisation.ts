import { getOrganisationSettings, updateOrganisationSettings, type OrganisationSettingsView } from '../../src/services/organisation/organisation-settings.ts';
import { builder } from '../builder.ts';

// Organisation settings (spec, Authentication 6; Rotation rules; Limits): organisation keys only.

const OrganisationSettingsRef = builder.objectRef<OrganisationSettingsView>('OrganisationSettings').implement({
  description: 'API key settings of the organisation; workspace values, when set, override them.',
  fields: (t) => ({
    user_api_key_rotation_period: t.int({ nullable: true, description: 'Enforced rotation cadence of user keys, in days (weekly → 7, monthly → 30)', resolve: (s) => s.user_api_key_rotation_period as number | null }),
    max_user_api_keys_per_user: t.int({ nullable: true, resolve: (s) => s.max_user_api_keys_per_user as number | null }),
    default_api_key_expiry_days: t.int({ nullable: true, resolve: (s) => s.default_api_key_expiry_days as number | null }),
    max_api_key_expiry_days: t.int({ nullable: true, resolve: (s) => s.max_api_key_expiry_days as number | null }),
    user_api_key_auto_create: t.boolean({ nullable: true, resolve: (s) => s.user_api_key_auto_create as boolean | null }),
    user_api_key_auto_create_scopes: t.stringList({ nullable: true, resolve: (s) => s.user_api_key_auto_create_scopes as string[] | null }),
    default_workspace_user_api_key_auto_create: t.boolean({ nullable: true, resolve: (s) => s.default_workspace_user_api_key_auto_create as boolean | null }),
    block_inline_config: t.boolean({ nullable: true, description: 'Saved-only mode: requests may not pick a provider, endpoint or config inline', resolve: (s) => s.block_inline_config as boolean | null }),
  }),
});

builder.queryField('organisationSettings', (t) =>
  t.field({ type: OrganisationSettingsRef, resolve: (_, __, ctx) => getOrganisationSettings(ctx.em, ctx.actor) }),
);

builder.mutationField('updateOrganisationSettings', (t) =>
  t.field({
    type: OrganisationSettingsRef,
    errors: { directResult: true },
    args: { input: t.arg({ type: 'JSON', required: true, description: 'Fields to change; null clears one' }) },
    resolve: (_, a, ctx) => updateOrganisationSettings(ctx.em, ctx.actor, ctx.meta, a.input),
  }),
);
