import { z } from 'zod';
import { parseWith } from '../../domain/validation.ts';

/** Parses one body field with its own schema, naming errors as the caller spelled them (`conditions[0].key`). */
export function parseField<S extends z.ZodType>(name: string, schema: S, value: unknown): z.output<S> {
  return parseWith(z.object({ [name]: schema }), { [name]: value })[name] as z.output<S>;
}
