// Every resource type workers can Resolve (besides api_key, which has its own RPC and cache).
// Each resource's service folder exports its WorkerResolver; list it here.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ResolvedResource } from '../../domain/sync-codec.ts';
import { configWorkerResolver } from '../configs/worker-resolver.ts';
import type { WorkerResolver } from './worker-resolver.ts';

const RESOLVERS = new Map<string, WorkerResolver>([configWorkerResolver].map((r) => [r.type, r]));

export const resolvableTypes = (): string[] => [...RESOLVERS.keys()];

export function isResolvable(type: string): boolean {
  return RESOLVERS.has(type);
}

/** The resource now, or null when it is unknown, deleted or of a type workers do not resolve. */
export async function resolveForWorker(em: EntityManager, type: string, key: string): Promise<ResolvedResource | null> {
  const resolver = RESOLVERS.get(type);
  if (!resolver || !key || key.length > 512) return null;
  return resolver.resolve(em, key);
}
