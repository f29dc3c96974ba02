// Mistral error JSON -> OpenAI's error shape. Mistral answers
// {object:'error', message, type, param, code}; validation errors (422) carry
// message {detail:[...]} or a top-level detail; the edge answers {message, request_id}.
import { isObj, obj, str } from '../shared/json.ts';

function typeFor(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

const asText = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : v === undefined || v === null ? undefined : JSON.stringify(v);

export function openAIError(status: number, raw: unknown): { error: { message: string; type: string; param: string | null; code: string | null } } {
  const body = obj(raw);
  const inner = isObj(body.error) ? body.error : body;
  const message = asText(inner.message) ?? asText(inner.detail) ?? `Mistral error (HTTP ${status})`;
  const code = inner.code === undefined || inner.code === null ? null : String(inner.code);
  return { error: { message, type: str(inner.type) ?? typeFor(status), param: str(inner.param) ?? null, code } };
}
