// Log exports (api-catalogue "Logs Export (7)", gateway-spec States and transitions and Errors).
//
// States: draft → (start) in_progress → success | failed, or (cancel) stopped. Update puts any
// export that is not in progress back to draft (its file is dropped: it no longer matches);
// start runs a draft, failed or stopped one; delete archives an export that is not in progress
// ("must be cancelled first") and hides it from list and get. The background job
// (export-job.ts) writes the JSONL file with progress.
import { rm } from 'node:fs/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, invalidParameter, notFound } from '../../domain/errors.ts';
import { parseWith } from '../../domain/validation.ts';
import { LogExportSchema } from '../../persistence/entities/index.ts';
import type { LogExport } from '../../persistence/entities/log-export.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import { isOrganisationKey, type Actor, type RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { effectiveDeniedFields } from '../request-logs/field-restrictions.ts';
import { findWorkspace } from '../workspaces/find-workspace.ts';
import { countExport } from './export-query.ts';
import { wakeExportJobs } from './export-signal.ts';
import { findLogExport } from './find-log-export.ts';
import { createLogExportSchema, exportFiltersSchema, updateLogExportSchema } from './log-export-input.ts';

const conflict = (message: string, code: string): AppError => new AppError(409, 'conflict_error', code, message, null);

export interface ExportTotal {
  id: string;
  total: number;
  object: 'export';
}

export interface ExportMessage {
  message: string;
  object: 'export';
}

export interface ExportDownload {
  signed_url: string;
}

/** The export's workspace: `workspace_id`, else one named in the filters, else the workspace key's own. */
async function exportWorkspace(em: EntityManager, actor: Actor, bodyWorkspace: string | null | undefined, filters: { workspace_id?: string; workspace_slug?: string }): Promise<string> {
  const named = bodyWorkspace ?? filters.workspace_id ?? filters.workspace_slug;
  const param = bodyWorkspace ? 'workspace_id' : filters.workspace_id ? 'filters.workspace_id' : 'filters.workspace_slug';
  if (named) {
    const ws = await findWorkspace(em, actor.organisationId, named);
    if (!ws) throw notFound('Workspace', param);
    authorize(actor, 'logs.export', { workspaceId: ws.id });
    const other = [filters.workspace_id, filters.workspace_slug].filter((v): v is string => !!v && v !== ws.id && v !== ws.slug);
    if (other.length) throw invalidParameter('filters.workspace_slug', 'filters.workspace_slug: names another workspace than the export');
    return ws.id;
  }
  if (!isOrganisationKey(actor) && actor.workspaceId) return actor.workspaceId;
  throw invalidParameter('workspace_id', 'workspace_id: required for organisation API keys');
}

/** Denied fields are refused on create and update (gateway-spec, Errors). */
async function checkDenied(em: EntityManager, organisationId: string, workspaceId: string, requested: string[]): Promise<void> {
  const denied = await effectiveDeniedFields(em, organisationId, workspaceId);
  const bad = requested.filter((f) => (denied as string[]).includes(f));
  if (bad.length) {
    throw new AppError(400, 'invalid_request_error', 'field_denied', `requested_data: ${bad.join(', ')} ${bad.length > 1 ? 'are' : 'is'} denied for this workspace`, 'requested_data');
  }
}

const actorId = (actor: Actor): string => actor.userId ?? actor.keyId;

function describe(filters: Record<string, unknown>): string {
  const from = filters.time_of_generation_min ? String(filters.time_of_generation_min) : 'the first log';
  const to = filters.time_of_generation_max ? String(filters.time_of_generation_max) : 'now';
  return `Logs from ${from} to ${to}`;
}

export async function createLogExport(em: EntityManager, actor: Actor, meta: RequestMeta, input: unknown): Promise<ExportTotal> {
  authorize(actor, 'logs.export');
  const body = parseWith(createLogExportSchema, input ?? {});
  const filters = parseWith(exportFiltersSchema, body.filters, 'filters');
  const workspaceId = await exportWorkspace(em, actor, body.workspace_id, filters);
  await checkDenied(em, actor.organisationId, workspaceId, body.requested_data);
  const total = await countExport(em, { organisationId: actor.organisationId, workspaceId, filters: body.filters });
  return em.transactional(async (tx) => {
    const id = crypto.randomUUID();
    tx.create(LogExportSchema, {
      id,
      organisationId: actor.organisationId,
      workspaceId,
      filters: body.filters,
      requestedData: body.requested_data,
      status: 'draft',
      description: body.description ?? describe(body.filters),
      createdBy: actorId(actor),
      total,
    });
    recordAudit(tx, actor, meta, { action: 'log_export.create', targetType: 'log_export', targetId: id, workspaceId, details: { filters: body.filters, requested_data: body.requested_data, total } });
    await tx.flush();
    return { id, total, object: 'export' as const };
  });
}

async function dropFile(e: LogExport): Promise<void> {
  if (e.filePath) await rm(e.filePath, { force: true });
}

export async function updateLogExport(em: EntityManager, actor: Actor, meta: RequestMeta, id: string, input: unknown): Promise<ExportTotal> {
  authorize(actor, 'logs.export');
  const body = parseWith(updateLogExportSchema, input ?? {});
  const filters = parseWith(exportFiltersSchema, body.filters, 'filters');
  let oldFile: LogExport | null = null;
  const out = await em.transactional(async (tx) => {
    const e = await findLogExport(tx, actor, id, { lock: true });
    authorize(actor, 'logs.export', { workspaceId: e.workspaceId });
    if (e.status === 'in_progress') throw conflict('The export is in progress: cancel it before changing it', 'export_in_progress');
    const workspaceId = body.workspace_id || filters.workspace_id || filters.workspace_slug ? await exportWorkspace(tx, actor, body.workspace_id, filters) : e.workspaceId;
    const requested = body.requested_data ?? e.requestedData;
    await checkDenied(tx, actor.organisationId, workspaceId, requested);
    const total = await countExport(tx, { organisationId: actor.organisationId, workspaceId, filters: body.filters });
    if (e.filePath) oldFile = { ...e };
    Object.assign(e, {
      workspaceId,
      filters: body.filters,
      requestedData: requested,
      description: body.description ?? e.description,
      status: 'draft',
      total,
      processed: 0,
      filePath: null,
      fileBytes: null,
      error: null,
      startedAt: null,
      finishedAt: null,
    });
    recordAudit(tx, actor, meta, { action: 'log_export.update', targetType: 'log_export', targetId: e.id, workspaceId, details: { filters: body.filters, requested_data: requested, total } });
    await tx.flush();
    return { id: e.id, total, object: 'export' as const };
  });
  if (oldFile) await dropFile(oldFile);
  return out;
}

export async function startLogExport(em: EntityManager, actor: Actor, meta: RequestMeta, id: string): Promise<ExportMessage> {
  authorize(actor, 'logs.export');
  const out = await em.transactional(async (tx) => {
    const e = await findLogExport(tx, actor, id, { lock: true });
    authorize(actor, 'logs.export', { workspaceId: e.workspaceId });
    if (e.status === 'in_progress') throw conflict('The export is already in progress', 'export_in_progress');
    if (e.status === 'success') throw conflict('The export is finished: download it, or update it to run again', 'export_already_finished');
    const denied = await effectiveDeniedFields(tx, e.organisationId, e.workspaceId);
    const bad = e.requestedData.filter((f) => (denied as string[]).includes(f));
    if (bad.length) throw new AppError(400, 'invalid_request_error', 'field_denied', `requested_data: ${bad.join(', ')} denied for this workspace since the export was saved; update it`, 'requested_data');
    Object.assign(e, { status: 'in_progress', processed: 0, error: null, startedAt: new Date(), finishedAt: null, leaseUntil: null });
    recordAudit(tx, actor, meta, { action: 'log_export.start', targetType: 'log_export', targetId: e.id, workspaceId: e.workspaceId });
    await tx.flush();
    return { message: 'Export started', object: 'export' as const };
  });
  wakeExportJobs();
  return out;
}

export async function cancelLogExport(em: EntityManager, actor: Actor, meta: RequestMeta, id: string): Promise<ExportMessage> {
  authorize(actor, 'logs.export');
  return em.transactional(async (tx) => {
    const e = await findLogExport(tx, actor, id, { lock: true });
    authorize(actor, 'logs.export', { workspaceId: e.workspaceId });
    if (e.status !== 'in_progress') throw conflict(`The export is not in progress (status ${e.status})`, 'export_not_in_progress');
    // The job sees the new status at its next chunk, stops and removes its partial file.
    Object.assign(e, { status: 'stopped', finishedAt: new Date(), leaseUntil: null });
    recordAudit(tx, actor, meta, { action: 'log_export.cancel', targetType: 'log_export', targetId: e.id, workspaceId: e.workspaceId, details: { processed: e.processed } });
    await tx.flush();
    return { message: 'Export cancelled', object: 'export' as const };
  });
}

/** DELETE: archives (hidden from list and get); an export in progress must be cancelled first. */
export async function deleteLogExport(em: EntityManager, actor: Actor, meta: RequestMeta, id: string): Promise<{ id: string }> {
  authorize(actor, 'logs.export');
  let archived: LogExport | null = null;
  const out = await em.transactional(async (tx) => {
    const e = await findLogExport(tx, actor, id, { lock: true });
    authorize(actor, 'logs.export', { workspaceId: e.workspaceId });
    if (e.status === 'in_progress') throw conflict('The export is in progress: cancel it before deleting it', 'export_in_progress');
    archived = { ...e };
    Object.assign(e, { archivedAt: new Date(), filePath: null, fileBytes: null });
    recordAudit(tx, actor, meta, { action: 'log_export.delete', targetType: 'log_export', targetId: e.id, workspaceId: e.workspaceId });
    await tx.flush();
    return { id: e.id };
  });
  if (archived) await dropFile(archived);
  return out;
}

export const DOWNLOAD_TTL_MS = 15 * 60_000;
const downloadContext = (id: string) => `log-export-download:${id}`;

/** GET …/download → `{signed_url}`: a link to the file, valid 15 minutes, that needs no API key. */
export async function downloadLogExport(em: EntityManager, actor: Actor, box: SecretBox, id: string, baseUrl: string | null, now = new Date()): Promise<ExportDownload> {
  authorize(actor, 'logs.export');
  const e = await findLogExport(em, actor, id);
  if (e.status !== 'success' || !e.filePath) throw conflict(`The export has no file yet (status ${e.status})`, 'export_not_ready');
  const token = box.seal(JSON.stringify({ id: e.id, exp: now.getTime() + DOWNLOAD_TTL_MS }), downloadContext(e.id));
  const base = (baseUrl ?? '').replace(/\/+$/, '');
  return { signed_url: `${base}/v1/logs/exports/${e.id}/file?token=${encodeURIComponent(token)}` };
}

export interface ExportFile {
  path: string;
  file_name: string;
  size: number;
}

/** The file a signed URL names, if the token is genuine, unexpired and the export still finished. */
export async function exportFileForToken(em: EntityManager, box: SecretBox, id: string, token: string, now = new Date()): Promise<ExportFile> {
  const denied = () => new AppError(403, 'permission_error', 'invalid_download_token', 'The download link is invalid or expired', 'token');
  let claims: { id?: string; exp?: number };
  try {
    claims = JSON.parse(box.open(token, downloadContext(id)));
  } catch {
    throw denied();
  }
  if (claims.id !== id || typeof claims.exp !== 'number' || claims.exp < now.getTime()) throw denied();
  const e = await em.findOne(LogExportSchema, { id, archivedAt: null }, { refresh: true });
  if (!e || e.status !== 'success' || !e.filePath) throw notFound('Export', 'exportId');
  return { path: e.filePath, file_name: `log-export-${e.id}.jsonl`, size: Number(e.fileBytes ?? 0) };
}
