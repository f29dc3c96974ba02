// GET /v1/models (integrated catalogue) from the control plane's `model_catalogue` resolver,
// held in the worker's ResourceCache (refreshed by its TTL).
import type { CatalogueModel, ModelCatalogue } from '../contracts.ts';
import type { ResourceCache } from '../sync/resource-cache.ts';

export class ManagedModelCatalogue implements ModelCatalogue {
  constructor(private readonly resources: ResourceCache) {}

  async listModels(workspaceId: string): Promise<CatalogueModel[]> {
    if (!workspaceId) return [];
    const found = await this.resources.getOrStale('model_catalogue', workspaceId);
    const data = found?.payload.data;
    return Array.isArray(data) ? (data as CatalogueModel[]) : [];
  }
}
