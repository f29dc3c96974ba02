import type { ApiKeyView } from '../../src/services/api-keys/api-key-view.ts';
import { createApiKey, type CreatedApiKey } from '../../src/services/api-keys/create-api-key.ts';
import { getApiKey, listApiKeys } from '../../src/services/api-keys/read-api-keys.ts';
import type { Page } from '../../src/services/paging.ts';
import { builder } from '../builder.ts';

// Field names follow the REST shapes (control-plane-schemas 2.1) so the REST adapters pass
// bodies through unchanged and validation errors name the same fields in both APIs.

const RateLimitRef = builder.objectRef<{ type: string; unit: string; value: number }>('RateLimit').implement({
  fields: (t) => ({ type: t.exposeString('type'), unit: t.exposeString('unit'), value: t.exposeInt('value') }),
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
    scopes: t.exposeStringList('scopes'),
    defaults: t.expose('defaults', { type: 'JSON', nullable: true }),
    alert_emails: t.exposeStringList('alert_emails'),
    expires_at: t.expose('expires_at', { type: 'DateTime', nullable: true }),
    rotation_policy: t.expose('rotation_policy', { type: 'JSON', nullable: true }),
    object: t.exposeString('object'),
  }),
});

const ApiKeyPageRef = builder.objectRef<Page<ApiKeyView>>('ApiKeyPage').implement({
  fields: (t) => ({
    object: t.exposeString('object'),
    total: t.exposeInt('total'),
    data: t.field({ type: [ApiKeyRef], resolve: (p) => p.data }),
  }),
});

const CreatedApiKeyRef = builder.objectRef<CreatedApiKey>('CreatedApiKey').implement({
  description: 'The create answer: the only time the secret is returned.',
  fields: (t) => ({ id: t.exposeID('id'), key: t.exposeString('key'), object: t.exposeString('object') }),
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

/** Drops keys the caller omitted (GraphQL gives `undefined`), keeping explicit nulls. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => [k, plain(v)]));
  }
  return value;
}

builder.queryFields((t) => ({
  apiKeys: t.field({
    type: ApiKeyPageRef,
    args: { current_page: t.arg.int(), page_size: t.arg.int(), workspace_id: t.arg.string() },
    resolve: (_, a, ctx) => listApiKeys(ctx.em, ctx.actor, { currentPage: a.current_page, pageSize: a.page_size, workspaceId: a.workspace_id }),
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
}));
