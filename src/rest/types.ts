import type { ExecutionResult } from 'graphql';

/** Runs a GraphQL operation in-process (injected by the entry point: src/ does not import graphql/). */
export type OperationRunner = (document: string, variables: Record<string, unknown>, request: Request, ip: string | null) => Promise<ExecutionResult>;

export interface RestContext {
  request: Request;
  ip: string | null;
  params: Record<string, string>;
  query: URLSearchParams;
  run: OperationRunner;
}

export type RestHandler = (ctx: RestContext) => Promise<Response>;

export interface RestRoute {
  method: string;
  path: string; // e.g. /v2/api-keys/:subType
  handler: RestHandler;
}
