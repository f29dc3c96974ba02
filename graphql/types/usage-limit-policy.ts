import { listPolicyEntities, resetPolicyEntity, type ResetEntityResult } from '../../src/services/policies/policy-entities.ts';
import { getUsageLimitPolicy, listUsageLimitPolicies } from '../../src/services/policies/read-policies.ts';
import type { PolicyEntityView, UsageLimitPolicyView } from '../../src/services/policies/policy-view.ts';
import { createUsageLimitPolicy, deleteUsageLimitPolicy, updateUsageLimitPolicy } from '../../src/services/policies/write-usage-limit-policies.ts';
import { builder } from '../builder.ts';
import { plain } from '../input.ts';
import { pageType } from './page.ts';
import { ChangedPolicyRef, CreatedPolicyRef } from './rate-limit-policy.ts';

// Usage-limit (budget) policies (control-plane-schemas 2.12; gateway-spec: type `requests`, archived skipped).

const UsageLimitPolicyRef = builder.objectRef<UsageLimitPolicyView>('UsageLimitPolicy').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name', { nullable: true }),
    conditions: t.field({ type: 'JSON', resolve: (p) => p.conditions }),
    group_by: t.field({ type: 'JSON', resolve: (p) => p.group_by }),
    type: t.exposeString('type', { description: 'cost | tokens | requests' }),
    credit_limit: t.exposeFloat('credit_limit'),
    alert_threshold: t.exposeFloat('alert_threshold', { nullable: true }),
    periodic_reset: t.exposeString('periodic_reset', { nullable: true }),
    periodic_reset_days: t.exposeInt('periodic_reset_days', { nullable: true }),
    next_usage_reset_at: t.expose('next_usage_reset_at', { type: 'DateTime', nullable: true }),
    last_reset_at: t.expose('last_reset_at', { type: 'DateTime', nullable: true }),
    status: t.exposeString('status'),
    workspace_id: t.exposeString('workspace_id'),
    organisation_id: t.exposeString('organisation_id'),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    last_updated_at: t.expose('last_updated_at', { type: 'DateTime' }),
    value_key_usage_map: t.field({ type: 'JSON', nullable: true, description: 'Only with include_usage', resolve: (p) => p.value_key_usage_map }),
    object: t.exposeString('object'),
  }),
});

const UsageLimitPolicyPageRef = pageType('UsageLimitPolicyPage', UsageLimitPolicyRef);

const PolicyEntityRef = builder.objectRef<PolicyEntityView>('UsageLimitPolicyEntity').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    value_key: t.exposeString('value_key'),
    current_usage: t.exposeFloat('current_usage'),
    status: t.exposeString('status', { description: 'active | exhausted' }),
  }),
});

const PolicyEntityPageRef = pageType('UsageLimitPolicyEntityPage', PolicyEntityRef);

const ResetEntityRef = builder.objectRef<ResetEntityResult>('ResetUsageLimitPolicyEntity').implement({
  fields: (t) => ({ id: t.exposeID('id'), value_key: t.exposeString('value_key') }),
});

const CreateUsageLimitPolicyInput = builder.inputType('CreateUsageLimitPolicyInput', {
  fields: (t) => ({
    name: t.string(),
    conditions: t.field({ type: 'JSON', required: true }),
    group_by: t.field({ type: 'JSON', required: true }),
    type: t.string({ required: true }),
    credit_limit: t.float({ required: true }),
    alert_threshold: t.float(),
    periodic_reset: t.string({ description: 'monthly | weekly; absent = cumulative' }),
    periodic_reset_days: t.int(),
    workspace_id: t.string(),
    organisation_id: t.string(),
  }),
});

const UpdateUsageLimitPolicyInput = builder.inputType('UpdateUsageLimitPolicyInput', {
  fields: (t) => ({
    name: t.string(),
    credit_limit: t.float(),
    alert_threshold: t.float(),
    periodic_reset: t.string({ description: 'null removes' }),
    periodic_reset_days: t.int(),
    reset_usage_for_value: t.string(),
    conditions: t.field({ type: 'JSON' }),
  }),
});

builder.queryFields((t) => ({
  usageLimitPolicies: t.field({
    type: UsageLimitPolicyPageRef,
    args: { workspace_id: t.arg.string(), status: t.arg.string(), type: t.arg.string(), current_page: t.arg.int(), page_size: t.arg.int() },
    resolve: (_, a, ctx) =>
      listUsageLimitPolicies(ctx.em, ctx.actor, { workspaceId: a.workspace_id, status: a.status, type: a.type, currentPage: a.current_page, pageSize: a.page_size }),
  }),
  usageLimitPolicy: t.field({
    type: UsageLimitPolicyRef,
    args: { id: t.arg.id({ required: true }), status: t.arg.string(), include_usage: t.arg.boolean() },
    resolve: (_, a, ctx) => getUsageLimitPolicy(ctx.em, ctx.actor, String(a.id), { status: a.status, includeUsage: a.include_usage }),
  }),
  usageLimitPolicyEntities: t.field({
    type: PolicyEntityPageRef,
    args: { id: t.arg.id({ required: true }), status: t.arg.string(), search: t.arg.string(), current_page: t.arg.int(), page_size: t.arg.int() },
    resolve: (_, a, ctx) => listPolicyEntities(ctx.em, ctx.actor, String(a.id), { status: a.status, search: a.search, currentPage: a.current_page, pageSize: a.page_size }),
  }),
}));

builder.mutationFields((t) => ({
  createUsageLimitPolicy: t.field({
    type: CreatedPolicyRef,
    errors: { directResult: true },
    args: { input: t.arg({ type: CreateUsageLimitPolicyInput, required: true }) },
    resolve: (_, a, ctx) => createUsageLimitPolicy(ctx.em, ctx.actor, ctx.meta, plain(a.input)),
  }),
  updateUsageLimitPolicy: t.field({
    type: ChangedPolicyRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateUsageLimitPolicyInput, required: true }) },
    resolve: (_, a, ctx) => updateUsageLimitPolicy(ctx.em, ctx.actor, ctx.meta, String(a.id), plain(a.input)),
  }),
  deleteUsageLimitPolicy: t.field({
    type: ChangedPolicyRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => deleteUsageLimitPolicy(ctx.em, ctx.actor, ctx.meta, String(a.id)),
  }),
  resetUsageLimitPolicyEntity: t.field({
    type: ResetEntityRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), entity_id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => resetPolicyEntity(ctx.em, ctx.actor, ctx.meta, String(a.id), String(a.entity_id)),
  }),
}));
