// Log export bodies (control-plane-schemas 2.14): `filters` (GenerationsFilterSchema, 1.5) and
// `requested_data` (the export's fields).
import { z } from 'zod';
import { LOG_EXPORT_FIELDS } from '../../domain/log-fields.ts';
import { logFilterFields } from '../request-logs/log-filters.ts';

/** "page_size: max 50000, default 50000". */
export const EXPORT_MAX_ROWS = 50_000;

export const exportFiltersSchema = z.strictObject({
  ...logFilterFields,
  page_size: z.coerce.number().int().min(1).max(EXPORT_MAX_ROWS).optional(),
  current_page: z.coerce.number().int().min(0).optional(),
});

const requestedData = z.array(z.enum(LOG_EXPORT_FIELDS)).min(1).max(LOG_EXPORT_FIELDS.length);

export const createLogExportSchema = z.strictObject({
  workspace_id: z.string().min(1).nullish(),
  filters: z.record(z.string(), z.unknown()),
  requested_data: requestedData,
  description: z.string().max(1000).nullish(),
});

export const updateLogExportSchema = z.strictObject({
  workspace_id: z.string().min(1).nullish(),
  filters: z.record(z.string(), z.unknown()),
  requested_data: requestedData.optional(),
  description: z.string().max(1000).nullish(),
});

export const fieldRestrictionsSchema = z.strictObject({
  workspace_id: z.string().min(1).nullish(),
  denied_fields: z.array(z.enum(LOG_EXPORT_FIELDS)).max(LOG_EXPORT_FIELDS.length),
});
