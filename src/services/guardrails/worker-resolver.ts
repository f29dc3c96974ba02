// Guardrails for workers (WorkerResolver contract, src/services/sync/worker-resolver.ts).
//
// Two resolver types, because they change for different reasons and are looked up by different keys:
// - `guardrail`: one saved guardrail, keyed `<id>` or `<owner>:<slug>` where owner is the workspace
//   id of a workspace guardrail or the organisation id of an organisation guardrail (migration 0007
//   writes exactly these keys). A config in workspace W naming slug S resolves `W:S`, then `<org>:S`.
// - `guardrail_policy`: keyed by workspace id, the organisation default guardrails (ids, in order)
//   that apply to that workspace after its exclusions. Changes of the organisation defaults touch
//   every workspace's key; an exclusion touches its workspace's. The guardrails themselves are
//   resolved by id through `guardrail`, so a guardrail edit does not churn every policy. The
//   workspace's own default guardrails (workspace.defaults) belong to the workspace resource.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { GuardrailActions, GuardrailCheck } from '../../domain/guardrails/guardrail-schema.ts';
import { GuardrailSchema, GuardrailWorkspaceExclusionSchema, OrganisationGuardrailDefaultsSchema, WorkspaceSchema } from '../../persistence/entities/index.ts';
import { latestChangeVersion, type WorkerResolver } from '../sync/worker-resolver.ts';
import { UUID } from './find-guardrail.ts';

export const guardrailWorkerResolver: WorkerResolver = {
  type: 'guardrail',
  async resolve(em, key) {
    let g;
    if (UUID.test(key)) {
      g = await em.findOne(GuardrailSchema, { id: key, deletedAt: null, status: 'active' });
    } else {
      const at = key.indexOf(':');
      if (at < 0) return null;
      const owner = key.slice(0, at);
      const slug = key.slice(at + 1);
      if (!UUID.test(owner)) return null;
      g = await em.findOne(GuardrailSchema, { slug, deletedAt: null, status: 'active', $or: [{ workspaceId: owner }, { workspaceId: null, organisationId: owner }] });
    }
    if (!g) return null;
    return {
      version: await latestChangeVersion(em, 'guardrail', key),
      payload: {
        id: g.id,
        slug: g.slug,
        name: g.name,
        organisation_id: g.organisationId,
        workspace_id: g.workspaceId ?? null,
        version_id: g.currentVersionId ?? null,
        // Unmasked: workers call the check endpoints with these headers.
        checks: g.checks as unknown as GuardrailCheck[],
        actions: g.actions as unknown as GuardrailActions,
      },
    };
  },
};

/** The organisation default guardrails a workspace applies, per direction, after its exclusions. */
export async function effectiveDefaults(em: EntityManager, workspaceId: string): Promise<{ organisationId: string; input: string[]; output: string[]; excluded: { input: boolean; output: boolean } } | null> {
  const ws = await em.findOne(WorkspaceSchema, { id: workspaceId });
  if (!ws) return null;
  const defaults = await em.findOne(OrganisationGuardrailDefaultsSchema, { organisationId: ws.organisationId });
  const exclusions = await em.find(GuardrailWorkspaceExclusionSchema, { workspaceId });
  const excluded = { input: exclusions.some((e) => e.direction === 'input'), output: exclusions.some((e) => e.direction === 'output') };
  return {
    organisationId: ws.organisationId,
    input: excluded.input ? [] : (defaults?.inputGuardrails ?? []),
    output: excluded.output ? [] : (defaults?.outputGuardrails ?? []),
    excluded,
  };
}

export const guardrailPolicyWorkerResolver: WorkerResolver = {
  type: 'guardrail_policy',
  async resolve(em, key) {
    if (!UUID.test(key)) return null;
    const eff = await effectiveDefaults(em, key);
    if (!eff) return null;
    return {
      version: await latestChangeVersion(em, 'guardrail_policy', key),
      payload: { workspace_id: key, organisation_id: eff.organisationId, input_guardrails: eff.input, output_guardrails: eff.output, excluded: eff.excluded },
    };
  },
};

/** Both resolvers of this folder, for the gRPC server's lookup by type. */
export const guardrailWorkerResolvers: WorkerResolver[] = [guardrailWorkerResolver, guardrailPolicyWorkerResolver];
