import { getOrganisationDefaults, updateOrganisationDefaults, type GuardrailRef, type OrganisationDefaultsView } from '../../src/services/guardrail-settings/organisation-defaults.ts';
import { listWorkspaceExclusions, updateWorkspaceExclusions, type WorkspaceExclusionView } from '../../src/services/guardrail-settings/workspace-exclusions.ts';
import { builder } from '../builder.ts';
import { plain } from '../input.ts';
import { pageType } from './page.ts';

// Organisation default guardrails and the workspaces excluded from them (gateway-spec, "Other
// control-plane operations"). Organisation keys only.

const DirectionEnum = builder.enumType('GuardrailDirection', { values: ['input', 'output'] as const });

const GuardrailRefRef = builder.objectRef<GuardrailRef>('GuardrailRef').implement({
  fields: (t) => ({ id: t.exposeID('id'), slug: t.exposeString('slug') }),
});

const OrganisationDefaultsRef = builder.objectRef<OrganisationDefaultsView>('OrganisationDefaults').implement({
  description: 'Organisation guardrails applied to every workspace, except excluded ones.',
  fields: (t) => ({
    input_guardrails: t.field({ type: [GuardrailRefRef], resolve: (d) => d.input_guardrails }),
    output_guardrails: t.field({ type: [GuardrailRefRef], resolve: (d) => d.output_guardrails }),
    object: t.exposeString('object'),
  }),
});

const ExclusionRef = builder.objectRef<WorkspaceExclusionView>('WorkspaceExclusion').implement({
  fields: (t) => ({
    workspace_id: t.exposeString('workspace_id'),
    workspace_slug: t.exposeString('workspace_slug'),
    workspace_name: t.exposeString('workspace_name'),
    excluded: t.exposeBoolean('excluded'),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    created_by: t.exposeString('created_by', { nullable: true }),
  }),
});
const ExclusionPageRef = pageType('WorkspaceExclusionPage', ExclusionRef);

const OrganisationDefaultsInput = builder.inputType('OrganisationDefaultsInput', {
  fields: (t) => ({
    input_guardrails: t.stringList({ description: 'Organisation guardrail ids or slugs; replaces the list' }),
    output_guardrails: t.stringList({ description: 'Organisation guardrail ids or slugs; replaces the list' }),
  }),
});

const ExclusionEntryInput = builder.inputType('WorkspaceExclusionEntryInput', {
  fields: (t) => ({
    workspace_id: t.string({ required: true, description: 'Id or slug' }),
    excluded: t.boolean({ description: 'true (default) excludes, false restores' }),
  }),
});

const WorkspaceExclusionsInput = builder.inputType('WorkspaceExclusionsInput', {
  fields: (t) => ({
    workspaces: t.field({ type: [ExclusionEntryInput], required: true }),
    override_existing: t.boolean({ description: 'Replace the excluded set instead of merging' }),
  }),
});

builder.queryFields((t) => ({
  organisationDefaults: t.field({ type: OrganisationDefaultsRef, resolve: (_, __, ctx) => getOrganisationDefaults(ctx.em, ctx.actor) }),
  workspaceExclusions: t.field({
    type: ExclusionPageRef,
    args: { direction: t.arg({ type: DirectionEnum, required: true }), current_page: t.arg.int(), page_size: t.arg.int() },
    resolve: (_, a, ctx) => listWorkspaceExclusions(ctx.em, ctx.actor, a.direction, { currentPage: a.current_page, pageSize: a.page_size }),
  }),
}));

builder.mutationFields((t) => ({
  updateOrganisationDefaults: t.field({
    type: OrganisationDefaultsRef,
    errors: { directResult: true },
    args: { input: t.arg({ type: OrganisationDefaultsInput, required: true }) },
    resolve: (_, a, ctx) => updateOrganisationDefaults(ctx.em, ctx.actor, ctx.meta, plain(a.input)),
  }),
  updateWorkspaceExclusions: t.field({
    type: ExclusionPageRef,
    errors: { directResult: true },
    args: { direction: t.arg({ type: DirectionEnum, required: true }), input: t.arg({ type: WorkspaceExclusionsInput, required: true }) },
    resolve: (_, a, ctx) => updateWorkspaceExclusions(ctx.em, ctx.actor, ctx.meta, a.direction, plain(a.input)),
  }),
}));
