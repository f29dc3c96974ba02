import type { LogExport } from '../../persistence/entities/log-export.ts';

/** The export object (control-plane-schemas 2.14), plus the job's progress and failure reason. */
export interface LogExportView {
  id: string;
  organisation_id: string;
  workspace_id: string;
  filters: Record<string, unknown>;
  requested_data: string[];
  status: string;
  description: string;
  created_at: string;
  last_updated_at: string;
  created_by: string;
  object: 'export';
  progress: { total: number; processed: number; percent: number };
  error: string | null;
}

export function toLogExportView(e: LogExport): LogExportView {
  const percent = e.status === 'success' ? 100 : e.total > 0 ? Math.min(100, Math.floor((e.processed / e.total) * 100)) : 0;
  return {
    id: e.id,
    organisation_id: e.organisationId,
    workspace_id: e.workspaceId,
    filters: e.filters,
    requested_data: e.requestedData,
    status: e.status,
    description: e.description,
    created_at: new Date(e.createdAt).toISOString(),
    last_updated_at: new Date(e.lastUpdatedAt).toISOString(),
    created_by: e.createdBy,
    object: 'export',
    progress: { total: e.total, processed: e.processed, percent },
    error: e.error ?? null,
  };
}
