// Every resource type workers can Resolve (besides api_key, which has its own RPC and cache).
// Each resource's service folder exports its WorkerResolver; the control plane builds this set
// once (some resolvers need the SecretBox to decrypt credentials for workers).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ResolvedResource } from '../../domain/sync-codec.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import type { SecretResolverOptions } from '../secret-references/resolve-secret-reference.ts';
import { configWorkerResolver } from '../configs/worker-resolver.ts';
import { guardrailWorkerResolvers } from '../guardrails/worker-resolver.ts';
import { createMcpServerResolver } from '../mcp-servers/worker-resolver.ts';
import { policySetResolver } from '../policies/worker-resolver.ts';
import { modelCatalogueResolver } from '../providers/model-catalogue-resolver.ts';
import { providerWorkerResolver } from '../providers/worker-resolver.ts';
import { workspaceWorkerResolver } from '../workspaces/worker-resolver.ts';
import type { WorkerResolver } from './worker-resolver.ts';

export class WorkerResolvers {
  private readonly byType: Map<string, WorkerResolver>;

  constructor(resolvers: WorkerResolver[]) {
    this.byType = new Map(resolvers.map((r) => [r.type, r]));
  }

  types(): string[] {
    return [...this.byType.keys()];
  }

  isResolvable(type: string): boolean {
    return this.byType.has(type);
  }

  /** The resource now, or null when it is unknown, deleted or of a type workers do not resolve. */
  async resolve(em: EntityManager, type: string, key: string): Promise<ResolvedResource | null> {
    const resolver = this.byType.get(type);
    if (!resolver || !key || key.length > 512) return null;
    return resolver.resolve(em, key);
  }
}

export interface WorkerResolverDeps {
  secretBox: SecretBox;
  /** How provider secret mappings reach `env` and `file` secret references. */
  secretReferences?: SecretResolverOptions;
}

export function createWorkerResolvers(deps: WorkerResolverDeps): WorkerResolvers {
  return new WorkerResolvers([configWorkerResolver, providerWorkerResolver(deps.secretBox, deps.secretReferences), policySetResolver, ...guardrailWorkerResolvers, createMcpServerResolver(deps.secretBox), modelCatalogueResolver, workspaceWorkerResolver]);
}

/** Before the control plane wires its own (tests of single parts): configs and policies only. */
export const BASIC_RESOLVERS = new WorkerResolvers([configWorkerResolver, policySetResolver, ...guardrailWorkerResolvers, workspaceWorkerResolver]);
