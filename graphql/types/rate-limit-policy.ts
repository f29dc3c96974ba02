import { getRateLimitPolicy, listRateLimitPolicies } from '../../src/services/policies/read-policies.ts';
import type { RateLimitPolicyView } from '../../src/services/policies/policy-view.ts';
import { createRateLimitPolicy, deleteRateLimitPolicy, updateRateLimitPolicy, type ChangedPolicy, type CreatedPolicy } from '../../src/services/policies/write-rate-limit-policies.ts';
import { builder } from '../builder.ts';
import { plain } from '../input.ts';
import { pageType } from './page.ts';

// Rate-limit policies (control-plane-schemas 2.11; gateway-spec: `target`, `conditions` on update).

export const CreatedPolicyRef = builder.objectRef<CreatedPolicy>('CreatedPolicy').implement({
  fields: (t) => ({ id: t.exposeID('id'), object: t.exposeString('object') }),
});

export const ChangedPolicyRef = builder.objectRef<ChangedPolicy>('ChangedPolicy').implement({
  fields: (t) => ({ id: t.exposeID('id') }),
});

const RateLimitPolicyRef = builder.objectRef<RateLimitPolicyView>('RateLimitPolicy').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name', { nullable: true }),
    target: t.exposeString('target', { description: 'llm | mcp_tools' }),
    conditions: t.field({ type: 'JSON', description: '[{key, value}]: all must match', resolve: (p) => p.conditions }),
    group_by: t.field({ type: 'JSON', description: '[{key}]: the counter key', resolve: (p) => p.group_by }),
    type: t.exposeString('type', { description: 'requests | tokens' }),
    unit: t.exposeString('unit', { description: 'rpm | rph | rpd' }),
    value: t.exposeFloat('value'),
    status: t.exposeString('status', { description: 'active | archived' }),
    workspace_id: t.exposeString('workspace_id'),
    organisation_id: t.exposeString('organisation_id'),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    last_updated_at: t.expose('last_updated_at', { type: 'DateTime' }),
    object: t.exposeString('object'),
  }),
});

const RateLimitPolicyPageRef = pageType('RateLimitPolicyPage', RateLimitPolicyRef);

const CreateRateLimitPolicyInput = builder.inputType('CreateRateLimitPolicyInput', {
  fields: (t) => ({
    name: t.string(),
    target: t.string({ description: 'llm (default) | mcp_tools' }),
    conditions: t.field({ type: 'JSON', required: true }),
    group_by: t.field({ type: 'JSON', required: true }),
    type: t.string({ required: true }),
    unit: t.string({ required: true }),
    value: t.float({ required: true }),
    workspace_id: t.string({ description: 'Id or slug; required for organisation API keys' }),
    organisation_id: t.string(),
  }),
});

const UpdateRateLimitPolicyInput = builder.inputType('UpdateRateLimitPolicyInput', {
  fields: (t) => ({
    name: t.string(),
    unit: t.string(),
    value: t.float(),
    conditions: t.field({ type: 'JSON' }),
  }),
});

builder.queryFields((t) => ({
  rateLimitPolicies: t.field({
    type: RateLimitPolicyPageRef,
    args: {
      workspace_id: t.arg.string(),
      status: t.arg.string({ description: 'active (default) | archived' }),
      type: t.arg.string(),
      unit: t.arg.string(),
      target: t.arg.string(),
      current_page: t.arg.int(),
      page_size: t.arg.int(),
    },
    resolve: (_, a, ctx) =>
      listRateLimitPolicies(ctx.em, ctx.actor, {
        workspaceId: a.workspace_id,
        status: a.status,
        type: a.type,
        unit: a.unit,
        target: a.target,
        currentPage: a.current_page,
        pageSize: a.page_size,
      }),
  }),
  rateLimitPolicy: t.field({
    type: RateLimitPolicyRef,
    args: { id: t.arg.id({ required: true }), status: t.arg.string({ description: 'active (default) | archived' }) },
    resolve: (_, a, ctx) => getRateLimitPolicy(ctx.em, ctx.actor, String(a.id), a.status),
  }),
}));

builder.mutationFields((t) => ({
  createRateLimitPolicy: t.field({
    type: CreatedPolicyRef,
    errors: { directResult: true },
    args: { input: t.arg({ type: CreateRateLimitPolicyInput, required: true }) },
    resolve: (_, a, ctx) => createRateLimitPolicy(ctx.em, ctx.actor, ctx.meta, plain(a.input)),
  }),
  updateRateLimitPolicy: t.field({
    type: ChangedPolicyRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateRateLimitPolicyInput, required: true }) },
    resolve: (_, a, ctx) => updateRateLimitPolicy(ctx.em, ctx.actor, ctx.meta, String(a.id), plain(a.input)),
  }),
  deleteRateLimitPolicy: t.field({
    type: ChangedPolicyRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => deleteRateLimitPolicy(ctx.em, ctx.actor, ctx.meta, String(a.id)),
  }),
}));
