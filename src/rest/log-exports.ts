import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { ERROR_FIELDS, fieldOrError, json } from './graphql-result.ts';
import { readJsonBody } from './read-body.ts';
import type { RestContext, RestRoute } from './types.ts';

// Log exports (api-catalogue "Logs Export (7)"; control-plane-schemas 2.14; gateway-spec States
// and transitions): create/update → `{id, total, object}`, start/cancel → `{message, object}`,
// download → `{signed_url}` (a link under /file that streams the JSONL and needs no API key),
// DELETE archives, and the field restrictions (GET, and PUT to set them).

const EXPORT_FIELDS = 'id organisation_id workspace_id filters requested_data status description created_at last_updated_at created_by object progress { total processed percent } error';

const LIST = `query LogExports($workspace_id: String) { logExports(workspace_id: $workspace_id) { object total data { ${EXPORT_FIELDS} } } }`;
const GET = `query LogExport($id: ID!) { logExport(id: $id) { ${EXPORT_FIELDS} } }`;
const DOWNLOAD = `query LogExportDownload($id: ID!) { logExportDownload(id: $id) { signed_url } }`;
const FILE = `query LogExportFile($id: ID!, $token: String!) { logExportFile(id: $id, token: $token) { path file_name size } }`;
const RESTRICTIONS = `query LogFieldRestrictions($workspace_id: String) {
  logFieldRestrictions(workspace_id: $workspace_id) { object workspace_id denied_fields organisation_denied_fields workspace_denied_fields }
}`;
const TOTAL = `__typename ... on LogExportTotal { id total object } ${ERROR_FIELDS}`;
const MESSAGE = `__typename ... on LogExportMessage { message object } ${ERROR_FIELDS}`;
const CREATE = `mutation CreateLogExport($input: CreateLogExportInput!) { createLogExport(input: $input) { ${TOTAL} } }`;
const UPDATE = `mutation UpdateLogExport($id: ID!, $input: UpdateLogExportInput!) { updateLogExport(id: $id, input: $input) { ${TOTAL} } }`;
const START = `mutation StartLogExport($id: ID!) { startLogExport(id: $id) { ${MESSAGE} } }`;
const CANCEL = `mutation CancelLogExport($id: ID!) { cancelLogExport(id: $id) { ${MESSAGE} } }`;
const DELETE = `mutation DeleteLogExport($id: ID!) { deleteLogExport(id: $id) { __typename ... on LogExportDeleted { id } ${ERROR_FIELDS} } }`;
const SET_RESTRICTIONS = `mutation SetLogFieldRestrictions($input: LogFieldRestrictionsInput!) {
  setLogFieldRestrictions(input: $input) { __typename ... on LogFieldRestrictionsSet { object workspace_id denied_fields } ${ERROR_FIELDS} }
}`;

const strip = ({ __typename: _t, ...rest }: Record<string, unknown>) => rest;

async function create(ctx: RestContext): Promise<Response> {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  const out = fieldOrError<Record<string, unknown>>(await ctx.run(CREATE, { input: body.value }, ctx.request, ctx.ip), 'createLogExport');
  return out.ok ? json(strip(out.value)) : out.response;
}

async function list(ctx: RestContext): Promise<Response> {
  const out = fieldOrError<unknown>(await ctx.run(LIST, { workspace_id: ctx.query.get('workspace_id') || undefined }, ctx.request, ctx.ip), 'logExports');
  return out.ok ? json(out.value) : out.response;
}

async function get(ctx: RestContext): Promise<Response> {
  const out = fieldOrError<unknown>(await ctx.run(GET, { id: ctx.params.exportId }, ctx.request, ctx.ip), 'logExport');
  return out.ok ? json(out.value) : out.response;
}

async function update(ctx: RestContext): Promise<Response> {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  const out = fieldOrError<Record<string, unknown>>(await ctx.run(UPDATE, { id: ctx.params.exportId, input: body.value }, ctx.request, ctx.ip), 'updateLogExport');
  return out.ok ? json(strip(out.value)) : out.response;
}

const action = (document: string, field: string) => async (ctx: RestContext): Promise<Response> => {
  const out = fieldOrError<Record<string, unknown>>(await ctx.run(document, { id: ctx.params.exportId }, ctx.request, ctx.ip), field);
  return out.ok ? json(strip(out.value)) : out.response;
};

/** DELETE → `{}` (control-plane-schemas 1.2: deletes answer an empty object). */
async function remove(ctx: RestContext): Promise<Response> {
  const out = fieldOrError<unknown>(await ctx.run(DELETE, { id: ctx.params.exportId }, ctx.request, ctx.ip), 'deleteLogExport');
  return out.ok ? json({}) : out.response;
}

/** `{signed_url}`, absolute: relative to this request when no public URL is configured. */
async function download(ctx: RestContext): Promise<Response> {
  const out = fieldOrError<{ signed_url: string }>(await ctx.run(DOWNLOAD, { id: ctx.params.exportId }, ctx.request, ctx.ip), 'logExportDownload');
  return out.ok ? json({ signed_url: new URL(out.value.signed_url, ctx.request.url).toString() }) : out.response;
}

/** The signed URL: streams the JSONL file. */
async function file(ctx: RestContext): Promise<Response> {
  const out = fieldOrError<{ path: string; file_name: string; size: number }>(
    await ctx.run(FILE, { id: ctx.params.exportId, token: ctx.query.get('token') ?? '' }, ctx.request, ctx.ip),
    'logExportFile',
  );
  if (!out.ok) return out.response;
  const stream = Readable.toWeb(createReadStream(out.value.path)) as unknown as ReadableStream<Uint8Array>;
  return new Response(stream, {
    status: 200,
    headers: {
      'content-type': 'application/x-ndjson',
      'content-length': String(out.value.size),
      'content-disposition': `attachment; filename="${out.value.file_name}"`,
    },
  });
}

async function restrictions(ctx: RestContext): Promise<Response> {
  const out = fieldOrError<unknown>(await ctx.run(RESTRICTIONS, { workspace_id: ctx.query.get('workspace_id') || undefined }, ctx.request, ctx.ip), 'logFieldRestrictions');
  return out.ok ? json(out.value) : out.response;
}

async function setRestrictions(ctx: RestContext): Promise<Response> {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  const out = fieldOrError<Record<string, unknown>>(await ctx.run(SET_RESTRICTIONS, { input: body.value }, ctx.request, ctx.ip), 'setLogFieldRestrictions');
  return out.ok ? json(strip(out.value)) : out.response;
}

export const logExportRoutes: RestRoute[] = [
  { method: 'POST', path: '/v1/logs/exports', handler: create },
  { method: 'GET', path: '/v1/logs/exports', handler: list },
  { method: 'GET', path: '/v1/logs/exports/field-restrictions', handler: restrictions },
  { method: 'PUT', path: '/v1/logs/exports/field-restrictions', handler: setRestrictions },
  { method: 'GET', path: '/v1/logs/exports/:exportId', handler: get },
  { method: 'PUT', path: '/v1/logs/exports/:exportId', handler: update },
  { method: 'DELETE', path: '/v1/logs/exports/:exportId', handler: remove },
  { method: 'POST', path: '/v1/logs/exports/:exportId/start', handler: action(START, 'startLogExport') },
  { method: 'POST', path: '/v1/logs/exports/:exportId/cancel', handler: action(CANCEL, 'cancelLogExport') },
  { method: 'GET', path: '/v1/logs/exports/:exportId/download', handler: download },
  { method: 'GET', path: '/v1/logs/exports/:exportId/file', handler: file },
];
