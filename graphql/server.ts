import { execute, GraphQLError, parse, validate, type DocumentNode, type ExecutionResult } from 'graphql';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { MikroORM } from '@mikro-orm/postgresql';
import { AppError } from '../src/domain/errors.ts';
import type { Logger } from '../src/domain/logger.ts';
import type { SecretBox } from '../src/platform/secret-box.ts';
import { buildContext } from './context.ts';
import { schema } from './schema.ts';

export interface ServerContext {
  ip?: string | null;
}

/** AppErrors keep their code, type, param and HTTP status; anything else is masked. */
export function toGraphQLError(err: unknown): GraphQLError {
  const original = err instanceof GraphQLError ? (err.originalError ?? err) : err;
  if (original instanceof AppError) {
    return new GraphQLError(original.message, {
      originalError: original,
      path: err instanceof GraphQLError ? err.path : undefined,
      extensions: { code: original.code, type: original.type, param: original.param, http: { status: original.status } },
    });
  }
  if (err instanceof GraphQLError && !err.originalError) return err; // syntax, validation, coercion
  return new GraphQLError('Internal error', { extensions: { code: 'internal_error', type: 'server_error', http: { status: 500 } } });
}

export interface GraphQLApi {
  yoga: YogaServerInstance<ServerContext, object>;
  /** Runs one operation in-process, as the REST adapters do. Throws the AppError of a failed authentication. */
  run(document: string, variables: Record<string, unknown>, request: Request, ip: string | null): Promise<ExecutionResult>;
}

export interface GraphQLOptions {
  /** Public base URL of the control plane (PUBLIC_CONTROL_PLANE_URL), for links it hands out. */
  publicUrl?: string | null;
  /** Opens secrets kept sealed at rest (GATEWAY_SECRET_KEY). */
  secretBox: SecretBox;
  /** Public base URLs of the gateway workers (GATEWAY_PUBLIC_URLS). */
  gatewayUrls?: string[];
  /** Private hosts outbound checks may reach (TRUSTED_CUSTOM_HOSTS). */
  trustedHosts?: string[];
}

export function createGraphQL(orm: MikroORM, logger: Logger, opts: GraphQLOptions): GraphQLApi {
  const contextOptions = { publicUrl: opts.publicUrl ?? null, secretBox: opts.secretBox, gatewayUrls: opts.gatewayUrls ?? [], trustedHosts: opts.trustedHosts ?? [] };
  const context = (request: Request, ip: string | null) => buildContext(orm, request, ip, contextOptions);
  const yoga = createYoga<ServerContext>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: { title: 'AI gateway control plane', headers: JSON.stringify({ 'x-gateway-api-key': '<admin key>' }) },
    landingPage: false,
    context: async ({ request, ip }) => {
      try {
        return await context(request, ip ?? null);
      } catch (err) {
        throw toGraphQLError(err);
      }
    },
    // Expected errors (AppError) are answers, not incidents; anything else is logged once here.
    logging: false,
    maskedErrors: {
      maskError: (err) => {
        const masked = toGraphQLError(err);
        if (masked.extensions.code === 'internal_error') logger.error('GraphQL operation failed', { err: String((err as GraphQLError).originalError ?? err) });
        return masked;
      },
    },
  });

  const parsed = new Map<string, DocumentNode>();
  async function run(document: string, variables: Record<string, unknown>, request: Request, ip: string | null): Promise<ExecutionResult> {
    let doc = parsed.get(document);
    if (!doc) {
      doc = parse(document);
      const errors = validate(schema, doc);
      if (errors.length) throw new Error(`invalid adapter operation: ${errors[0]!.message}`);
      parsed.set(document, doc);
    }
    const contextValue = await context(request, ip);
    const result = await execute({ schema, document: doc, variableValues: variables, contextValue });
    for (const e of result.errors ?? []) {
      if (e.originalError && !(e.originalError instanceof AppError)) logger.error('GraphQL operation failed', { err: String(e.originalError) });
    }
    return result;
  }

  return { yoga, run };
}
