// Analytics query parameters (api-catalogue §3.4): the common log filters, with
// time_of_generation_min/max required, plus `bucket` (the width of a data point; by default
// chosen from the range) and, for groups, current_page/page_size.
import { z } from 'zod';
import { invalidParameter } from '../../domain/errors.ts';
import { parseWith } from '../../domain/validation.ts';
import { logFilterFields, type LogFilterInput } from '../request-logs/log-filters.ts';

export const BUCKETS = ['minute', 'hour', 'day', 'week', 'month'] as const;
export type Bucket = (typeof BUCKETS)[number];
const BUCKET_MS: Record<Bucket, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000, month: 31 * 86_400_000 };
const MAX_POINTS = 1000;

const analyticsSchema = z.strictObject({
  ...logFilterFields,
  time_of_generation_min: logFilterFields.time_of_generation_min.unwrap(),
  time_of_generation_max: logFilterFields.time_of_generation_max.unwrap(),
  bucket: z.enum(BUCKETS).optional(),
  current_page: z.coerce.number().int().min(0).optional(),
  page_size: z.coerce.number().int().min(1).max(1000).optional(),
});

export interface AnalyticsParams {
  filters: LogFilterInput & { time_of_generation_min: Date; time_of_generation_max: Date };
  bucket: Bucket;
  currentPage: number;
  pageSize: number;
}

/** ≤ 2 days: hours; ≤ 90 days: days; longer: weeks. */
function defaultBucket(ms: number): Bucket {
  if (ms <= 2 * 86_400_000) return 'hour';
  if (ms <= 90 * 86_400_000) return 'day';
  return 'week';
}

export function parseAnalyticsParams(input: unknown): AnalyticsParams {
  const { bucket, current_page, page_size, ...filters } = parseWith(analyticsSchema, input ?? {});
  const span = filters.time_of_generation_max.getTime() - filters.time_of_generation_min.getTime();
  if (span < 0) throw invalidParameter('time_of_generation_min', 'time_of_generation_min: must not be after time_of_generation_max');
  const b = bucket ?? defaultBucket(span);
  if (span / BUCKET_MS[b] > MAX_POINTS) throw invalidParameter('bucket', `bucket: ${b} gives more than ${MAX_POINTS} data points over this range; choose a wider one`);
  return { filters, bucket: b, currentPage: current_page ?? 0, pageSize: page_size ?? 100 };
}
