import type { EntityManager } from '@mikro-orm/postgresql';
import { IntegrationSchema, ProviderSchema } from '../../persistence/entities/index.ts';
import type { Provider } from '../../persistence/entities/provider.ts';
import type { Actor } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { page, pageWindow, type Page, type PageArgs } from '../paging.ts';
import { findProvider } from './find-provider.ts';
import { toProviderView, type ProviderView } from './provider-view.ts';
import { listWorkspace } from './target-workspace.ts';

async function views(em: EntityManager, rows: Provider[]): Promise<ProviderView[]> {
  const ids = [...new Set(rows.map((r) => r.integrationId).filter((x): x is string => !!x))];
  const integrations = ids.length ? await em.find(IntegrationSchema, { id: { $in: ids } }, { fields: ['id', 'slug'] }) : [];
  const slugOf = new Map(integrations.map((i) => [i.id, i.slug]));
  return rows.map((r) => toProviderView(r, slugOf.get(r.integrationId ?? '') ?? ''));
}

/** GET /providers: `{object, total, data}`, page size 50 by default (control-plane-schemas 1.1). */
export async function listProviders(em: EntityManager, actor: Actor, args: PageArgs & { workspaceId?: string | null }): Promise<Page<ProviderView>> {
  authorize(actor, 'providers.list');
  const window = pageWindow(args, { defaultSize: 50 });
  const workspaceId = await listWorkspace(em, actor, args.workspaceId);
  const [rows, total] = await em.findAndCount(
    ProviderSchema,
    { organisationId: actor.organisationId, kind: 'provider', ...(workspaceId ? { workspaceId } : {}) },
    { orderBy: { createdAt: 'asc', id: 'asc' }, limit: window.limit, offset: window.offset },
  );
  return page(await views(em, rows), total);
}

/** GET /providers/{slug}?workspace_id=. */
export async function getProvider(em: EntityManager, actor: Actor, idOrSlug: string, workspaceId?: string | null): Promise<ProviderView> {
  authorize(actor, 'providers.read');
  const p = await findProvider(em, actor, 'provider', idOrSlug, workspaceId);
  return (await views(em, [p]))[0]!;
}
