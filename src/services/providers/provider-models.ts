import type { EntityManager } from '@mikro-orm/postgresql';
import { IntegrationModelSchema, IntegrationSchema, ProviderSchema } from '../../persistence/entities/index.ts';
import type { Actor } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { page, type Page } from '../paging.ts';
import { listWorkspace } from './target-workspace.ts';

// GET /providers/models (api-catalogue, draft branch: "List models available through
// providers"; answer untyped upstream). Ours: one item per enabled model of each provider's
// integration, named as the data plane takes it, `@<provider slug>/<model>`. Integrations that
// allow all models also pass catalogue models not listed here (there is no catalogue table).

export interface ProviderModelView {
  id: string;
  slug: string;
  provider: string;
  workspace_id: string;
  integration_id: string;
  ai_provider_id: string;
  is_custom: boolean;
  allow_all_models: boolean;
  object: 'model';
}

export async function listProviderModels(em: EntityManager, actor: Actor, args: { workspaceId?: string | null }): Promise<Page<ProviderModelView>> {
  authorize(actor, 'providers.list');
  const workspaceId = await listWorkspace(em, actor, args.workspaceId);
  const providers = await em.find(
    ProviderSchema,
    { organisationId: actor.organisationId, kind: 'provider', ...(workspaceId ? { workspaceId } : {}) },
    { orderBy: { slug: 'asc', workspaceId: 'asc' } },
  );
  const integrationIds = [...new Set(providers.map((p) => p.integrationId!))];
  const integrations = new Map((await em.find(IntegrationSchema, { id: { $in: integrationIds } })).map((i) => [i.id, i]));
  const models = await em.find(IntegrationModelSchema, { integrationId: { $in: integrationIds }, enabled: true }, { orderBy: { slug: 'asc' } });
  const out: ProviderModelView[] = [];
  for (const p of providers) {
    const integ = integrations.get(p.integrationId!);
    if (!integ) continue;
    for (const m of models.filter((x) => x.integrationId === integ.id)) {
      out.push({
        id: `@${p.slug}/${m.slug}`,
        slug: m.slug,
        provider: p.slug,
        workspace_id: p.workspaceId,
        integration_id: integ.slug,
        ai_provider_id: integ.aiProviderId,
        is_custom: m.isCustom,
        allow_all_models: integ.allowAllModels,
        object: 'model',
      });
    }
  }
  return page(out, out.length);
}
