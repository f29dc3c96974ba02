// Which logs an export covers: its filters over its workspace, in the page window its filters
// name (GenerationsFilterSchema page_size/current_page; at most 50 000 rows), newest first.
import type { EntityManager } from '@mikro-orm/postgresql';
import { parseWith } from '../../domain/validation.ts';
import { filterSql, type LogFilter } from '../request-logs/log-filters.ts';
import { EXPORT_MAX_ROWS, exportFiltersSchema } from './log-export-input.ts';

export interface ExportScope {
  organisationId: string;
  workspaceId: string;
  filters: Record<string, unknown>;
}

export interface ExportQuery {
  where: string;
  params: unknown[];
  offset: number;
  limit: number;
}

export function exportQuery(e: ExportScope): ExportQuery {
  const { page_size, current_page, ...rest } = parseWith(exportFiltersSchema, e.filters, 'filters');
  const limit = page_size ?? EXPORT_MAX_ROWS;
  // The export's workspace decides; a workspace named inside the filters was checked against it on create.
  const filter: LogFilter = { ...rest, workspace_id: undefined, workspace_slug: undefined, organisationId: e.organisationId, workspaceIdResolved: e.workspaceId };
  const { where, params } = filterSql(filter);
  return { where, params, offset: (current_page ?? 0) * limit, limit };
}

/** How many logs the export will write (its `total`). */
export async function countExport(em: EntityManager, e: ExportScope): Promise<number> {
  const q = exportQuery(e);
  const rows = await em.getConnection().execute<{ n: string }[]>(
    `select count(*) as n from (select 1 from request_log l where ${q.where} offset ? limit ?) w`,
    [...q.params, q.offset, q.limit],
    'all',
    em.getTransactionContext(),
  );
  return Number(rows[0]?.n ?? 0);
}
