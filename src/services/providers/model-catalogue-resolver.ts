// The integrated model catalogue of a workspace (GET /v1/models with the fetch-integrated-models
// flag; spec: Request headers): every model its managed providers offer, named `@provider/model`
// as requests name them. Explicitly listed integration models come first; an integration that
// allows all models offers the pricing catalogue's models of its provider.
import type { EntityManager } from '@mikro-orm/postgresql';
import { PRICING_CATALOGUE } from '../../domain/pricing/catalogue.ts';
import type { WorkerResolver } from '../sync/worker-resolver.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Row {
  provider_slug: string;
  ai_provider_id: string;
  allow_all_models: boolean;
  created: string;
  model_slug: string | null;
  model_enabled: boolean | null;
}

export const MODEL_CATALOGUE = 'model_catalogue';

/**
 * Key: the workspace id. No change trigger feeds it: the worker's cache TTL keeps it fresh, and
 * the version is 0 (a catalogue is a listing, not something a request's safety depends on).
 */
export const modelCatalogueResolver: WorkerResolver = {
  type: MODEL_CATALOGUE,
  async resolve(em: EntityManager, key: string) {
    if (!UUID.test(key)) return null;
    const rows = await em.getConnection().execute<Row[]>(
      `select p.slug as provider_slug, i.ai_provider_id, i.allow_all_models, extract(epoch from p.created_at)::bigint::text as created,
              m.slug as model_slug, m.enabled as model_enabled
         from provider p
         join integration i on i.id = p.integration_id and i.status = 'active'
         left join integration_model m on m.integration_id = i.id
        where p.workspace_id = ? and p.kind = 'provider' and p.status = 'active'
        order by p.slug, m.slug`,
      [key],
    );
    const models: { id: string; object: 'model'; created: number; owned_by: string; provider: string }[] = [];
    const byProvider = new Map<string, Row[]>();
    for (const r of rows) {
      const list = byProvider.get(r.provider_slug);
      if (list) list.push(r);
      else byProvider.set(r.provider_slug, [r]);
    }
    for (const [slug, list] of byProvider) {
      const first = list[0]!;
      const created = Number(first.created);
      const listed = list.filter((r) => r.model_slug !== null);
      const off = new Set(listed.filter((r) => r.model_enabled === false).map((r) => r.model_slug!));
      const names = new Set(listed.filter((r) => r.model_enabled).map((r) => r.model_slug!));
      if (first.allow_all_models) for (const m of Object.keys(PRICING_CATALOGUE[first.ai_provider_id] ?? {})) if (!off.has(m)) names.add(m);
      for (const m of [...names].sort()) models.push({ id: `@${slug}/${m}`, object: 'model', created, owned_by: first.ai_provider_id, provider: slug });
    }
    return { version: 0, payload: { workspace_id: key, data: models } };
  },
};
