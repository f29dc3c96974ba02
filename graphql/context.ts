import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { AppError } from '../src/domain/errors.ts';
import type { SecretBox } from '../src/platform/secret-box.ts';
import type { Actor, RequestMeta } from '../src/services/auth/actor.ts';
import { authenticate } from '../src/services/auth/authenticate.ts';

export interface GraphQLContext {
  /** Forked per request: no identity map is shared between requests. */
  em: EntityManager;
  /** The authenticated caller; reading it without valid credentials throws the 401. */
  readonly actor: Actor;
  meta: RequestMeta;
  /** Public base URL of the control plane, for links it hands out (PUBLIC_CONTROL_PLANE_URL). */
  publicUrl: string | null;
  /** Opens secrets kept sealed at rest (GATEWAY_SECRET_KEY). */
  secretBox: SecretBox;
  /** Public base URLs of the gateway workers (GATEWAY_PUBLIC_URLS), first the default. */
  gatewayUrls: string[];
  /** Private hosts outbound checks may reach (TRUSTED_CUSTOM_HOSTS). */
  trustedHosts: string[];
}

export interface ContextOptions {
  publicUrl: string | null;
  secretBox: SecretBox;
  gatewayUrls?: string[];
  trustedHosts?: string[];
}

/**
 * Stands in for the caller when credentials are missing or bad: any use of it throws the 401.
 * (A getter would not do: Yoga copies the context with Object.assign, which reads getters.)
 */
function unauthenticatedActor(err: AppError): Actor {
  return new Proxy({} as Actor, {
    get(_, prop) {
      if (typeof prop === 'symbol' || prop === 'then' || prop === 'toJSON') return undefined;
      throw err;
    },
  });
}

// Query parameters that may carry credentials never reach the audit log.
const SECRET_PARAM = /token|key|secret|password/i;

function auditUri(url: URL): string {
  const kept = [...url.searchParams].filter(([k]) => !SECRET_PARAM.test(k));
  return kept.length ? `${url.pathname}?${new URLSearchParams(kept)}` : url.pathname;
}

/**
 * Every operation but the public ones (accepting an invite: its token is the credential)
 * needs a valid API key; authentication runs here once and a missing or bad key surfaces as
 * the 401 of the first resolver that uses `actor`.
 */
export async function buildContext(orm: MikroORM, request: Request, ip: string | null, opts: ContextOptions): Promise<GraphQLContext> {
  const em = orm.em.fork();
  const url = new URL(request.url);
  let actor: Actor | null = null;
  let authError: AppError | null = null;
  try {
    actor = await authenticate(em, request.headers);
  } catch (err) {
    if (!(err instanceof AppError) || err.status !== 401) throw err;
    authError = err;
  }
  return {
    em,
    actor: actor ?? unauthenticatedActor(authError!),
    meta: {
      ip,
      userAgent: request.headers.get('user-agent'),
      requestId: request.headers.get('x-request-id') ?? crypto.randomUUID(),
      method: request.method,
      uri: auditUri(url),
    },
    publicUrl: opts.publicUrl,
    secretBox: opts.secretBox,
    gatewayUrls: opts.gatewayUrls ?? [],
    trustedHosts: opts.trustedHosts ?? [],
  };
}
