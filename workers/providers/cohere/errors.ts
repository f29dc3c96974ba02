// Cohere error JSON ({id?, message}) -> OpenAI's error shape.
import { isObj, obj, str } from '../shared/json.ts';

function typeFor(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

export function openAIError(status: number, raw: unknown): { error: { message: string; type: string; param: null; code: null } } {
  const body = obj(raw);
  const message = str(body.message) ?? (isObj(body.error) ? str(body.error.message) : str(body.error)) ?? `Cohere error (HTTP ${status})`;
  return { error: { message, type: typeFor(status), param: null, code: null } };
}
