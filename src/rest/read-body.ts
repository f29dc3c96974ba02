import { AppError, errorResponse } from '../domain/errors.ts';

const MAX_BODY_BYTES = 1_048_576;

/** A JSON object body, or the 400 that says what is wrong with it. */
export async function readJsonBody(request: Request): Promise<{ ok: true; value: Record<string, unknown> } | { ok: false; response: Response }> {
  const fail = (code: string, message: string) => ({ ok: false as const, response: errorResponse(new AppError(400, 'invalid_request_error', code, message, 'body')) });
  const text = await request.text();
  if (text.length > MAX_BODY_BYTES) return { ok: false, response: errorResponse(new AppError(413, 'invalid_request_error', 'body_too_large', 'Request body exceeds 1 MiB', 'body')) };
  if (!text.trim()) return fail('missing_body', 'A JSON object body is required');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return fail('invalid_json', 'The body is not valid JSON');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return fail('invalid_body', 'The body must be a JSON object');
  return { ok: true, value: value as Record<string, unknown> };
}
