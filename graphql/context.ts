import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Actor, RequestMeta } from '../src/services/auth/actor.ts';
import { authenticate } from '../src/services/auth/authenticate.ts';

export interface GraphQLContext {
  /** Forked per request: no identity map is shared between requests. */
  em: EntityManager;
  actor: Actor;
  meta: RequestMeta;
}

/** Authenticates the caller; throws the 401 AppError when the key is missing or bad. */
export async function buildContext(orm: MikroORM, request: Request, ip: string | null): Promise<GraphQLContext> {
  const em = orm.em.fork();
  const url = new URL(request.url);
  const actor = await authenticate(em, request.headers);
  return {
    em,
    actor,
    meta: {
      ip,
      userAgent: request.headers.get('user-agent'),
      requestId: request.headers.get('x-request-id') ?? crypto.randomUUID(),
      method: request.method,
      uri: url.pathname + url.search,
    },
  };
}
