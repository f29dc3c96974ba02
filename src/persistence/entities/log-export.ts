import { defineEntity, type InferEntity } from '@mikro-orm/core';

export const LOG_EXPORT_STATUSES = ['draft', 'in_progress', 'success', 'failed', 'stopped'] as const;
export type LogExportStatus = (typeof LOG_EXPORT_STATUSES)[number];

// A log export job (control-plane-schemas 2.14): filters and fields, its state, and the JSONL
// file the background job writes (services/log-exports/export-job.ts).
export const LogExportSchema = defineEntity({
  name: 'LogExport',
  tableName: 'log_export',
  properties: (p) => ({
    id: p.uuid().primary(),
    organisationId: p.uuid(),
    workspaceId: p.uuid(),
    filters: p.json<Record<string, unknown>>(),
    requestedData: p.json<string[]>(),
    status: p.enum([...LOG_EXPORT_STATUSES]).default('draft'),
    description: p.text().default(''),
    createdBy: p.uuid(),
    total: p.integer().default(0),
    processed: p.integer().default(0),
    filePath: p.text().nullable(),
    fileBytes: p.double().nullable(),
    error: p.text().nullable(),
    startedAt: p.datetime().nullable(),
    finishedAt: p.datetime().nullable(),
    leaseUntil: p.datetime().nullable(),
    archivedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    lastUpdatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type LogExport = InferEntity<typeof LogExportSchema>;
