import type { Feedback, GuardrailActions, GuardrailCheck } from '../../src/domain/guardrails/guardrail-schema.ts';
import type { GuardrailDetailView, GuardrailView } from '../../src/services/guardrails/guardrail-view.ts';
import { getGuardrail, listGuardrails, type GuardrailPage } from '../../src/services/guardrails/read-guardrails.ts';
import { createGuardrail, deleteGuardrail, updateGuardrail, type CreatedGuardrail, type DeletedGuardrail, type UpdatedGuardrail } from '../../src/services/guardrails/write-guardrails.ts';
import { builder } from '../builder.ts';
import { plain } from '../input.ts';

// Guardrails (control-plane-schemas 2.3): saved checks + actions with versions; workspace or
// organisation guardrails. Field names follow REST.

const FeedbackRef = builder.objectRef<Feedback>('GuardrailFeedback').implement({
  fields: (t) => ({ value: t.exposeFloat('value'), weight: t.exposeFloat('weight'), metadata: t.exposeString('metadata') }),
});

const OutcomeRef = builder.objectRef<{ feedback: Feedback }>('GuardrailOutcome').implement({
  fields: (t) => ({ feedback: t.field({ type: FeedbackRef, resolve: (o) => o.feedback }) }),
});

const ActionsRef = builder.objectRef<GuardrailActions>('GuardrailActions').implement({
  fields: (t) => ({
    deny: t.exposeBoolean('deny', { description: 'Block the request when the guardrail fails' }),
    async: t.exposeBoolean('async', { description: 'Run without holding the request' }),
    on_success: t.field({ type: OutcomeRef, resolve: (a) => a.on_success }),
    on_fail: t.field({ type: OutcomeRef, resolve: (a) => a.on_fail }),
  }),
});

const CheckRef = builder.objectRef<GuardrailCheck>('GuardrailCheck').implement({
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Check id, `<plugin>.<function>`' }),
    parameters: t.field({ type: 'JSON', description: 'Static header values are masked', resolve: (c) => c.parameters }),
    name: t.exposeString('name', { nullable: true }),
    is_enabled: t.exposeBoolean('is_enabled'),
  }),
});

const GuardrailRef = builder.objectRef<GuardrailView | GuardrailDetailView>('Guardrail').implement({
  description: 'A saved guardrail; `checks` and `actions` are null in lists. workspace_id null = an organisation guardrail.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    slug: t.exposeString('slug'),
    organisation_id: t.exposeString('organisation_id'),
    workspace_id: t.exposeString('workspace_id', { nullable: true }),
    status: t.exposeString('status'),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    last_updated_at: t.expose('last_updated_at', { type: 'DateTime' }),
    owner_id: t.exposeString('owner_id'),
    updated_by: t.exposeString('updated_by', { nullable: true }),
    version_id: t.exposeString('version_id', { nullable: true, description: 'The current version' }),
    object: t.exposeString('object'),
    checks: t.field({ type: [CheckRef], nullable: true, resolve: (g) => ('checks' in g ? g.checks : null) }),
    actions: t.field({ type: ActionsRef, nullable: true, resolve: (g) => ('actions' in g ? g.actions : null) }),
  }),
});

const GuardrailPageRef = builder.objectRef<GuardrailPage>('GuardrailPage').implement({
  description: '`{data, total}`: the guardrail list envelope has no `object` (control-plane-schemas 1.1).',
  fields: (t) => ({ total: t.exposeInt('total'), data: t.field({ type: [GuardrailRef], resolve: (p) => p.data }) }),
});

const CreatedGuardrailRef = builder.objectRef<CreatedGuardrail>('CreatedGuardrail').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    slug: t.exposeString('slug'),
    version_id: t.exposeString('version_id'),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    created_by: t.exposeString('created_by', { description: 'The user, or the API key when no user is behind it' }),
  }),
});

const UpdatedGuardrailRef = builder.objectRef<UpdatedGuardrail>('UpdatedGuardrail').implement({
  fields: (t) => ({ id: t.exposeID('id'), slug: t.exposeString('slug'), version_id: t.exposeString('version_id', { nullable: true }) }),
});

const DeletedGuardrailRef = builder.objectRef<DeletedGuardrail>('DeletedGuardrail').implement({
  fields: (t) => ({ id: t.exposeID('id'), slug: t.exposeString('slug') }),
});

const FeedbackInput = builder.inputType('GuardrailFeedbackInput', {
  fields: (t) => ({ value: t.float(), weight: t.float(), metadata: t.string() }),
});
const OutcomeInput = builder.inputType('GuardrailOutcomeInput', {
  fields: (t) => ({ feedback: t.field({ type: FeedbackInput }) }),
});
const ActionsInput = builder.inputType('GuardrailActionsInput', {
  fields: (t) => ({
    deny: t.boolean({ description: 'default false' }),
    async: t.boolean({ description: 'default false' }),
    on_success: t.field({ type: OutcomeInput, description: 'default feedback {value 5, weight 1, metadata ""}' }),
    on_fail: t.field({ type: OutcomeInput, description: 'default feedback {value -5, weight 1, metadata ""}' }),
  }),
});
const CheckInput = builder.inputType('GuardrailCheckInput', {
  fields: (t) => ({
    id: t.string({ required: true, description: 'Check id, e.g. default.regexMatch (a bare id means default.<id>)' }),
    parameters: t.field({ type: 'JSON', description: 'Depends on the check id' }),
    name: t.string(),
    is_enabled: t.boolean({ description: 'default true' }),
  }),
});

const CreateGuardrailInput = builder.inputType('CreateGuardrailInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    workspace_id: t.string({ description: 'Id or slug; omitted with an organisation key → an organisation guardrail' }),
    organisation_id: t.string({ description: "The caller's organisation" }),
    checks: t.field({ type: [CheckInput], required: true }),
    actions: t.field({ type: ActionsInput, required: true }),
  }),
});

const UpdateGuardrailInput = builder.inputType('UpdateGuardrailInput', {
  fields: (t) => ({
    name: t.string(),
    checks: t.field({ type: [CheckInput] }),
    actions: t.field({ type: ActionsInput }),
  }),
});

builder.queryFields((t) => ({
  guardrails: t.field({
    type: GuardrailPageRef,
    args: {
      workspace_id: t.arg.string({ description: 'Id or slug' }),
      organisation_id: t.arg.string(),
      current_page: t.arg.int(),
      page_size: t.arg.int({ description: '1–1000, default 100' }),
    },
    resolve: (_, a, ctx) =>
      listGuardrails(ctx.em, ctx.actor, { workspaceId: a.workspace_id, organisationId: a.organisation_id, currentPage: a.current_page, pageSize: a.page_size }),
  }),
  guardrail: t.field({
    type: GuardrailRef,
    args: { id: t.arg.id({ required: true, description: 'Id or slug' }) },
    resolve: (_, a, ctx) => getGuardrail(ctx.em, ctx.actor, String(a.id)),
  }),
}));

builder.mutationFields((t) => ({
  createGuardrail: t.field({
    type: CreatedGuardrailRef,
    errors: { directResult: true },
    args: { input: t.arg({ type: CreateGuardrailInput, required: true }) },
    resolve: (_, a, ctx) => createGuardrail(ctx.em, ctx.actor, ctx.meta, plain(a.input)),
  }),
  updateGuardrail: t.field({
    type: UpdatedGuardrailRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateGuardrailInput, required: true }) },
    resolve: (_, a, ctx) => updateGuardrail(ctx.em, ctx.actor, ctx.meta, String(a.id), plain(a.input)),
  }),
  deleteGuardrail: t.field({
    type: DeletedGuardrailRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => deleteGuardrail(ctx.em, ctx.actor, ctx.meta, String(a.id)),
  }),
}));
