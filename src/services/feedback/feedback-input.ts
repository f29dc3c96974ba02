// Feedback bodies (control-plane-schemas 2.13): value −10…10 (integer), weight 0…1 (default 1.0), metadata map.
import { z } from 'zod';

const fields = {
  value: z.number().int().min(-10).max(10),
  weight: z.number().min(0).max(1).optional(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
};

export const createFeedbackSchema = z.strictObject({ trace_id: z.string().min(1).max(255), ...fields });
export const updateFeedbackSchema = z.strictObject(fields);
