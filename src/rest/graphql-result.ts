import { GraphQLError, type ExecutionResult } from 'graphql';
import { AppError, errorResponse, internalError, invalidParameter } from '../domain/errors.ts';

// Turns GraphQL outcomes into the REST answers the catalogue documents.

export const json = (body: unknown, status = 200): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** graphql-js variable coercion messages name the path (`at "input.rate_limits[0].value"`): keep it as the param. */
export function coercionError(message: string, variable: string): AppError | null {
  if (!message.startsWith(`Variable "$${variable}"`)) return null;
  const at = /at "[^".]+\.?([^"]*)"/.exec(message)?.[1] ?? '';
  const field = /Field "([^"]+)" (?:of required type .* was not provided|is not defined by type)/.exec(message)?.[1];
  const param = [at, field].filter(Boolean).join('.') || variable;
  const reason = message.replace(/^Variable "\$[^"]+" got invalid value .*?; /, '');
  return invalidParameter(param, `${param}: ${reason}`);
}

function fromErrors(errors: readonly GraphQLError[], inputVariable: string): AppError {
  for (const e of errors) {
    if (e.originalError instanceof AppError) return e.originalError;
    const c = coercionError(e.message, inputVariable);
    if (c) return c;
  }
  return internalError();
}

interface ErrorMember {
  __typename: 'GatewayError';
  message: string;
  code: string;
  type: AppError['type'];
  param: string | null;
  status: number;
}

/** The field's data, or the error as an OpenAI-style body with its HTTP status. */
export function fieldOrError<T>(result: ExecutionResult, field: string, inputVariable = 'input'): { ok: true; value: T } | { ok: false; response: Response } {
  if (result.errors?.length) return { ok: false, response: errorResponse(fromErrors(result.errors, inputVariable)) };
  const value = (result.data as Record<string, unknown> | null | undefined)?.[field] as (T & { __typename?: string }) | undefined;
  if (value && (value as { __typename?: string }).__typename === 'GatewayError') {
    const e = value as unknown as ErrorMember;
    return { ok: false, response: errorResponse(new AppError(e.status, e.type, e.code, e.message, e.param)) };
  }
  if (value === undefined) return { ok: false, response: errorResponse(internalError()) };
  return { ok: true, value: value as T };
}

export function stripTypename<T extends Record<string, unknown>>(v: T): Omit<T, '__typename'> {
  const { __typename: _drop, ...rest } = v;
  return rest;
}

export const ERROR_FIELDS = '... on GatewayError { message code type param status }';
