// Anthropic error JSON ({type:'error', error:{type, message}}) -> OpenAI's error shape.
import { isObj, obj, str } from '../shared/json.ts';

const FALLBACK_TYPE: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

export function openAIError(status: number, raw: unknown): { error: { message: string; type: string; param: null; code: string | null } } {
  const body = obj(raw);
  const inner = isObj(body.error) ? body.error : body;
  const type = str(inner.type) ?? FALLBACK_TYPE[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  const message = str(inner.message) ?? `Anthropic error (HTTP ${status})`;
  // Anthropic has no separate code; its error type is the stable identifier callers branch on.
  return { error: { message, type, param: null, code: type } };
}
