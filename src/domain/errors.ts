import { bufferedResponse } from './http/buffered-response.ts';

// One error type for the whole system: REST and the data plane answer it as an
// OpenAI-style body, GraphQL exposes it through the errors plugin with the same code.

export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'rate_limit_error'
  | 'timeout_error'
  | 'upstream_error'
  | 'service_unavailable_error'
  | 'server_error';

export interface ErrorBody {
  error: { message: string; type: ErrorType; param: string | null; code: string | null };
}

export class AppError extends Error {
  readonly status: number;
  readonly type: ErrorType;
  readonly code: string;
  readonly param: string | null;
  /** Response headers that belong to this error (e.g. Retry-After on a 429). */
  headers: Record<string, string> | undefined;

  constructor(status: number, type: ErrorType, code: string, message: string, param: string | null = null) {
    super(message);
    this.name = 'AppError';
    this.status = status;
    this.type = type;
    this.code = code;
    this.param = param;
    this.headers = undefined;
  }

  toBody(): ErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

export const invalidParameter = (param: string, message: string): AppError =>
  new AppError(400, 'invalid_request_error', 'invalid_parameter', message, param);

export const unauthenticated = (message = 'Missing or invalid API key. Send it in x-gateway-api-key or Authorization: Bearer.'): AppError =>
  new AppError(401, 'authentication_error', 'invalid_api_key', message);

export const forbidden = (message: string, code = 'permission_denied'): AppError =>
  new AppError(403, 'permission_error', code, message);

export const notFound = (what: string, param: string | null = null): AppError =>
  new AppError(404, 'not_found_error', 'not_found', `${what} not found`, param);

export const internalError = (message = 'Internal error'): AppError =>
  new AppError(500, 'server_error', 'internal_error', message);

/** Turns anything thrown into an AppError without leaking internals. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  return internalError();
}

export function errorResponse(err: AppError, headers?: Record<string, string>): Response {
  return bufferedResponse(JSON.stringify(err.toBody()), err.status, { 'content-type': 'application/json', ...err.headers, ...headers });
}
