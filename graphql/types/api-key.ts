import type { ApiKeyView } from '../../src/services/api-keys/api-key-view.ts';
import { claimRotatedApiKey, type ClaimedRotatedApiKey } from '../../src/services/api-keys/claim-rotated-key.ts';
import { createApiKey, type CreatedApiKey } from '../../src/services/api-keys/create-api-key.ts';
import type { CurrentUsage } from '../../src/services/api-keys/current-usage.ts';
import { deleteApiKey, type DeletedApiKey } from '../../src/services/api-keys/delete-api-key.ts';
import { getApiKey, listApiKeys } from '../../src/services/api-keys/read-api-keys.ts';
import { rotateApiKey, type RotatedApiKey } from '../../src/services/api-keys/rotate-api-key.ts';
import { updateApiKey } from '../../src/services/api-keys/update-api-key.ts';
import { builder } from '../builder.ts';
import { plain } from '../input.ts';
import { pageType } from './page.ts';

// Field names follow the REST shapes (control-plane-schemas 2.1) so the REST adapters pass
// bodies through unchanged and validation errors name the same fields in both APIs.

const RateLimitRef = builder.objectRef<{ type: string; unit: string; value: number }>('RateLimit').implement({
  fields: (t) => ({ type: t.exposeString('type'), unit: t.exposeString('unit'), value: t.exposeInt('value') }),
});

const CurrentUsageRef = builder.objectRef<CurrentUsage>('ApiKeyCurrentUsage').implement({
  description: 'Usage against the key\'s usage limit since the last reset (from the request log).',
  fields: (t) => ({
    type: t.exposeString('type', { description: 'cost | tokens' }),
    used: t.exposeFloat('used'),
    limit: t.exposeFloat('limit', { nullable: true }),
    fraction: t.exposeFloat('fraction', { nullable: true, description: 'used / limit as a decimal (0.125 = 12.5 %); may exceed 1' }),
    reset_at: t.expose('reset_at', { type: 'DateTime', nullable: true, description: 'start of the counted window; null: since the key was created' }),
    next_reset_at: t.expose('next_reset_at', { type: 'DateTime', nullable: true }),
    cost_tracking: t.exposeString('cost_tracking', { description: 'available | unavailable (cost needs the pricing catalogue)' }),
  }),
});

export const ApiKeyRef = builder.objectRef<ApiKeyView>('ApiKey').implement({
  description: 'An API key; `key` is masked (the secret is only shown when created).',
  fields: (t) => ({
    id: t.exposeID('id'),
    key: t.exposeString('key'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    type: t.exposeString('type'),
    organisation_id: t.exposeString('organisation_id'),
    workspace_id: t.exposeString('workspace_id', { nullable: true }),
    user_id: t.exposeString('user_id', { nullable: true }),
    status: t.exposeString('status'),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    last_updated_at: t.expose('last_updated_at', { type: 'DateTime' }),
    creation_mode: t.exposeString('creation_mode'),
    rate_limits: t.field({ type: [RateLimitRef], resolve: (k) => k.rate_limits as { type: string; unit: string; value: number }[] }),
    usage_limits: t.expose('usage_limits', { type: 'JSON', nullable: true }),
    reset_usage: t.exposeFloat('reset_usage', { description: 'usage cleared by the last reset_usage (0 when never reset)' }),
    last_reset_at: t.expose('last_reset_at', { type: 'DateTime', nullable: true }),
    current_usage: t.field({ type: CurrentUsageRef, nullable: true, resolve: (k) => k.current_usage }),
    scopes: t.exposeStringList('scopes'),
    defaults: t.expose('defaults', { type: 'JSON', nullable: true }),
    alert_emails: t.exposeStringList('alert_emails'),
    expires_at: t.expose('expires_at', { type: 'DateTime', nullable: true }),
    rotation_policy: t.expose('rotation_policy', { type: 'JSON', nullable: true }),
    last_rotated_at: t.expose('last_rotated_at', { type: 'DateTime', nullable: true }),
    rotation_pending: t.exposeBoolean('rotation_pending', { description: 'a scheduled rotation issued a new secret that waits to be claimed once (claimRotatedApiKey)' }),
    pending_key_created_at: t.expose('pending_key_created_at', { type: 'DateTime', nullable: true, description: 'when the scheduled rotation whose secret waits happened' }),
    object: t.exposeString('object'),
  }),
});

const ApiKeyPageRef = pageType('ApiKeyPage', ApiKeyRef);

const CreatedApiKeyRef = builder.objectRef<CreatedApiKey>('CreatedApiKey').implement({
  description: 'The create answer: the only time the secret is returned.',
  fields: (t) => ({ id: t.exposeID('id'), key: t.exposeString('key'), object: t.exposeString('object') }),
});

const DeletedApiKeyRef = builder.objectRef<DeletedApiKey>('DeletedApiKey').implement({
  fields: (t) => ({ id: t.exposeID('id'), object: t.exposeString('object'), deleted: t.exposeBoolean('deleted') }),
});

const RotatedApiKeyRef = builder.objectRef<RotatedApiKey>('RotatedApiKey').implement({
  description: 'The rotate answer: the new secret (shown once) and when the previous one stops working.',
  fields: (t) => ({
    id: t.exposeID('id'),
    key: t.exposeString('key'),
    key_transition_expires_at: t.expose('key_transition_expires_at', { type: 'DateTime' }),
  }),
});

const ClaimedRotatedApiKeyRef = builder.objectRef<ClaimedRotatedApiKey>('ClaimedRotatedApiKey').implement({
  description: 'The secret a scheduled rotation issued: returned once, then removed from the control plane.',
  fields: (t) => ({
    id: t.exposeID('id'),
    key: t.exposeString('key'),
    rotated_at: t.expose('rotated_at', { type: 'DateTime' }),
    key_transition_expires_at: t.expose('key_transition_expires_at', { type: 'DateTime', description: 'when the secret before it stops working' }),
  }),
});

const RateLimitInput = builder.inputType('RateLimitInput', {
  fields: (t) => ({
    type: t.string({ required: true }),
    unit: t.string({ required: true }),
    value: t.int({ required: true }),
  }),
});

const UsageLimitsInput = builder.inputType('UsageLimitsInput', {
  fields: (t) => ({
    credit_limit: t.float(),
    type: t.string(),
    alert_threshold: t.float(),
    periodic_reset: t.string(),
    periodic_reset_days: t.int(),
    next_usage_reset_at: t.string(),
  }),
});

const RotationPolicyInput = builder.inputType('RotationPolicyInput', {
  fields: (t) => ({
    rotation_period: t.string(),
    rotation_period_days: t.int(),
    next_rotation_at: t.string(),
    key_transition_period_ms: t.float(),
  }),
});

const ApiKeyDefaultsInput = builder.inputType('ApiKeyDefaultsInput', {
  fields: (t) => ({
    metadata: t.field({ type: 'JSON' }),
    config_id: t.string(),
    allow_config_override: t.boolean(),
  }),
});

const CreateApiKeyInput = builder.inputType('CreateApiKeyInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    description: t.string(),
    organisation_id: t.string(),
    workspace_id: t.string(),
    user_id: t.string(),
    rate_limits: t.field({ type: [RateLimitInput] }),
    usage_limits: t.field({ type: UsageLimitsInput }),
    scopes: t.stringList({ required: true }),
    defaults: t.field({ type: ApiKeyDefaultsInput }),
    alert_emails: t.stringList(),
    expires_at: t.string(),
    rotation_policy: t.field({ type: RotationPolicyInput }),
  }),
});

const UpdateApiKeyInput = builder.inputType('UpdateApiKeyInput', {
  description: 'Every field optional; null clears a nullable field. type, user_id, workspace_id and organisation_id are immutable (refused when sent).',
  fields: (t) => ({
    name: t.string(),
    description: t.string(),
    rate_limits: t.field({ type: [RateLimitInput] }),
    usage_limits: t.field({ type: UsageLimitsInput }),
    reset_usage: t.boolean({ description: 'zero the usage count and re-activate an exhausted key' }),
    scopes: t.stringList(),
    defaults: t.field({ type: ApiKeyDefaultsInput }),
    alert_emails: t.stringList(),
    expires_at: t.string(),
    rotation_policy: t.field({ type: RotationPolicyInput }),
    type: t.string({ description: 'immutable: refused' }),
    user_id: t.string({ description: 'immutable: refused' }),
    workspace_id: t.string({ description: 'immutable: refused' }),
    organisation_id: t.string({ description: 'immutable: refused' }),
  }),
});

const RotateApiKeyInput = builder.inputType('RotateApiKeyInput', {
  fields: (t) => ({
    key_transition_period_ms: t.float({ description: 'how long the previous secret keeps working; at least 1800000; default: the policy\'s, else 24 h' }),
  }),
});


builder.queryFields((t) => ({
  apiKeys: t.field({
    type: ApiKeyPageRef,
    args: {
      current_page: t.arg.int(),
      page_size: t.arg.int(),
      workspace_id: t.arg.string(),
      ids: t.arg.stringList({ description: 'batch lookup: only these keys (uuids), those the caller may see' }),
    },
    resolve: (_, a, ctx) =>
      listApiKeys(ctx.em, ctx.actor, { currentPage: a.current_page, pageSize: a.page_size, workspaceId: a.workspace_id, ids: a.ids ?? null }),
  }),
  apiKey: t.field({
    type: ApiKeyRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => getApiKey(ctx.em, ctx.actor, String(a.id)),
  }),
}));

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: CreatedApiKeyRef,
    errors: { directResult: true },
    args: {
      type: t.arg.string({ description: 'organisation | workspace; inferred when absent' }),
      sub_type: t.arg.string({ required: true, description: 'user | service' }),
      input: t.arg({ type: CreateApiKeyInput, required: true }),
    },
    resolve: (_, a, ctx) => createApiKey(ctx.em, ctx.actor, ctx.meta, { level: a.type, subType: a.sub_type, input: plain(a.input) }),
  }),
  updateApiKey: t.field({
    type: ApiKeyRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateApiKeyInput, required: true }) },
    resolve: (_, a, ctx) => updateApiKey(ctx.em, ctx.actor, ctx.meta, String(a.id), plain(a.input)),
  }),
  deleteApiKey: t.field({
    type: DeletedApiKeyRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => deleteApiKey(ctx.em, ctx.actor, ctx.meta, String(a.id)),
  }),
  rotateApiKey: t.field({
    type: RotatedApiKeyRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: RotateApiKeyInput }) },
    resolve: (_, a, ctx) => rotateApiKey(ctx.em, ctx.actor, ctx.meta, String(a.id), plain(a.input ?? {})),
  }),
  claimRotatedApiKey: t.field({
    type: ClaimedRotatedApiKeyRef,
    description: 'The new secret of a scheduled rotation, once (a second claim: no_pending_secret). Needs the key\'s update permission.',
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => claimRotatedApiKey(ctx.em, ctx.secretBox, ctx.actor, ctx.meta, String(a.id)),
  }),
}));
