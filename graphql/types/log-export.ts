import type { LogExportView } from '../../src/services/log-exports/log-export-view.ts';
import { getFieldRestrictions, getLogExport, listLogExports, type FieldRestrictions } from '../../src/services/log-exports/read-log-exports.ts';
import { setFieldRestrictions, type SetFieldRestrictions } from '../../src/services/log-exports/write-field-restrictions.ts';
import {
  cancelLogExport,
  createLogExport,
  deleteLogExport,
  downloadLogExport,
  exportFileForToken,
  startLogExport,
  updateLogExport,
  type ExportDownload,
  type ExportFile,
  type ExportMessage,
  type ExportTotal,
} from '../../src/services/log-exports/write-log-exports.ts';
import { builder } from '../builder.ts';
import { plain } from '../input.ts';
import { pageType } from './page.ts';

// Log exports (control-plane-schemas 2.14; gateway-spec States and transitions).

const ProgressRef = builder.objectRef<LogExportView['progress']>('LogExportProgress').implement({
  fields: (t) => ({ total: t.exposeInt('total'), processed: t.exposeInt('processed'), percent: t.exposeInt('percent') }),
});

const LogExportRef = builder.objectRef<LogExportView>('LogExport').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    organisation_id: t.exposeString('organisation_id'),
    workspace_id: t.exposeString('workspace_id'),
    filters: t.expose('filters', { type: 'JSON' }),
    requested_data: t.exposeStringList('requested_data'),
    status: t.exposeString('status', { description: 'draft | in_progress | success | failed | stopped' }),
    description: t.exposeString('description'),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    last_updated_at: t.expose('last_updated_at', { type: 'DateTime' }),
    created_by: t.exposeString('created_by'),
    object: t.exposeString('object'),
    progress: t.field({ type: ProgressRef, resolve: (e) => e.progress }),
    error: t.exposeString('error', { nullable: true }),
  }),
});

const LogExportPageRef = pageType('LogExportPage', LogExportRef);

const ExportTotalRef = builder.objectRef<ExportTotal>('LogExportTotal').implement({
  fields: (t) => ({ id: t.exposeID('id'), total: t.exposeInt('total'), object: t.exposeString('object') }),
});
const ExportMessageRef = builder.objectRef<ExportMessage>('LogExportMessage').implement({
  fields: (t) => ({ message: t.exposeString('message'), object: t.exposeString('object') }),
});
const ExportDeletedRef = builder.objectRef<{ id: string }>('LogExportDeleted').implement({
  fields: (t) => ({ id: t.exposeID('id') }),
});
const ExportDownloadRef = builder.objectRef<ExportDownload>('LogExportDownload').implement({
  fields: (t) => ({ signed_url: t.exposeString('signed_url', { description: 'Valid 15 minutes; needs no API key' }) }),
});
const ExportFileRef = builder.objectRef<ExportFile>('LogExportFile').implement({
  fields: (t) => ({ path: t.exposeString('path'), file_name: t.exposeString('file_name'), size: t.exposeFloat('size') }),
});
const FieldRestrictionsRef = builder.objectRef<FieldRestrictions>('LogFieldRestrictions').implement({
  fields: (t) => ({
    object: t.exposeString('object'),
    workspace_id: t.exposeString('workspace_id'),
    denied_fields: t.exposeStringList('denied_fields', { description: 'Effective: organisation-wide ∪ the workspace’s' }),
    organisation_denied_fields: t.exposeStringList('organisation_denied_fields'),
    workspace_denied_fields: t.exposeStringList('workspace_denied_fields'),
  }),
});
const SetFieldRestrictionsRef = builder.objectRef<SetFieldRestrictions>('LogFieldRestrictionsSet').implement({
  fields: (t) => ({
    object: t.exposeString('object'),
    workspace_id: t.exposeString('workspace_id', { nullable: true }),
    denied_fields: t.exposeStringList('denied_fields'),
  }),
});

const CreateLogExportInput = builder.inputType('CreateLogExportInput', {
  fields: (t) => ({
    workspace_id: t.string({ description: 'Id or slug; required for organisation API keys' }),
    filters: t.field({ type: 'JSON', required: true, description: 'GenerationsFilterSchema' }),
    requested_data: t.stringList({ required: true }),
    description: t.string(),
  }),
});
const UpdateLogExportInput = builder.inputType('UpdateLogExportInput', {
  fields: (t) => ({
    workspace_id: t.string(),
    filters: t.field({ type: 'JSON', required: true }),
    requested_data: t.stringList(),
    description: t.string(),
  }),
});
const FieldRestrictionsInput = builder.inputType('LogFieldRestrictionsInput', {
  fields: (t) => ({
    workspace_id: t.string({ description: 'Without it: every workspace of the organisation' }),
    denied_fields: t.stringList({ required: true }),
  }),
});

builder.queryFields((t) => ({
  logExports: t.field({
    type: LogExportPageRef,
    args: { workspace_id: t.arg.string() },
    resolve: (_, a, ctx) => listLogExports(ctx.em, ctx.actor, { workspaceId: a.workspace_id }),
  }),
  logExport: t.field({
    type: LogExportRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => getLogExport(ctx.em, ctx.actor, String(a.id)),
  }),
  logExportDownload: t.field({
    type: ExportDownloadRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => downloadLogExport(ctx.em, ctx.actor, ctx.secretBox, String(a.id), ctx.publicUrl),
  }),
  logExportFile: t.field({
    type: ExportFileRef,
    description: 'The file behind a signed_url (the token is the credential; used by the REST download).',
    args: { id: t.arg.id({ required: true }), token: t.arg.string({ required: true }) },
    resolve: (_, a, ctx) => exportFileForToken(ctx.em, ctx.secretBox, String(a.id), a.token),
  }),
  logFieldRestrictions: t.field({
    type: FieldRestrictionsRef,
    args: { workspace_id: t.arg.string() },
    resolve: (_, a, ctx) => getFieldRestrictions(ctx.em, ctx.actor, a.workspace_id),
  }),
}));

builder.mutationFields((t) => ({
  createLogExport: t.field({
    type: ExportTotalRef,
    errors: { directResult: true },
    args: { input: t.arg({ type: CreateLogExportInput, required: true }) },
    resolve: (_, a, ctx) => createLogExport(ctx.em, ctx.actor, ctx.meta, plain(a.input)),
  }),
  updateLogExport: t.field({
    type: ExportTotalRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateLogExportInput, required: true }) },
    resolve: (_, a, ctx) => updateLogExport(ctx.em, ctx.actor, ctx.meta, String(a.id), plain(a.input)),
  }),
  startLogExport: t.field({
    type: ExportMessageRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => startLogExport(ctx.em, ctx.actor, ctx.meta, String(a.id)),
  }),
  cancelLogExport: t.field({
    type: ExportMessageRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => cancelLogExport(ctx.em, ctx.actor, ctx.meta, String(a.id)),
  }),
  deleteLogExport: t.field({
    type: ExportDeletedRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => deleteLogExport(ctx.em, ctx.actor, ctx.meta, String(a.id)),
  }),
  setLogFieldRestrictions: t.field({
    type: SetFieldRestrictionsRef,
    errors: { directResult: true },
    args: { input: t.arg({ type: FieldRestrictionsInput, required: true }) },
    resolve: (_, a, ctx) => setFieldRestrictions(ctx.em, ctx.actor, ctx.meta, plain(a.input)),
  }),
}));
