// zod results → our error type, naming the offending field as the caller spelled it.
import type { z } from 'zod';
import { invalidParameter, type AppError } from './errors.ts';

export function pathToParam(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

export function zodToAppError(error: z.ZodError, prefix = ''): AppError {
  const issue = error.issues[0]!;
  let path = [...issue.path];
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    path = [...path, issue.keys[0]!];
    message = `Unknown field`;
  }
  const param = [prefix, pathToParam(path)].filter(Boolean).join('.') || null;
  return invalidParameter(param ?? 'body', param ? `${param}: ${message}` : message);
}

export function parseWith<S extends z.ZodType>(schema: S, input: unknown, prefix = ''): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw zodToAppError(result.error, prefix);
  return result.data;
}
