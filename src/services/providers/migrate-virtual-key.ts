import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { AppError } from '../../domain/errors.ts';
import { maskSecret, splitSecrets } from '../../domain/integrations/configurations.ts';
import { randomSuffix, slugifyName, slugSchema } from '../../domain/integrations/shared-schemas.ts';
import { parseWith } from '../../domain/validation.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import { IntegrationSchema } from '../../persistence/entities/index.ts';
import type { Actor, RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { checkedConfigurations } from '../integrations/checked-configurations.ts';
import { keyContext, sealSecretConfigurations } from '../integrations/integration-secrets.ts';
import { findProvider } from './find-provider.ts';
import { virtualKeyContext } from './virtual-keys.ts';

// POST /virtual-keys/migrate (api-catalogue, draft branch: "Migrate a virtual key to the
// integration/provider model"; body fields not shown upstream, ours: `slug`, `workspace_id`,
// `integration_slug`). The key becomes a workspace-scoped integration and the virtual key's row
// becomes a provider on it: same id and slug, so `@slug` and x-gateway-virtual-key keep working.

const migrateSchema = z.strictObject({
  slug: z.string().min(1).max(255),
  workspace_id: z.string().min(1).max(255).optional(),
  integration_slug: slugSchema.optional(),
});

interface VkDeployment {
  apiVersion: string;
  deploymentName: string;
  alias?: string;
  is_default?: boolean;
}

/** model_config (camelCase, legacy) → an integration's configurations. */
function configurationsOf(provider: string, mc: Record<string, unknown>): Record<string, unknown> {
  if (provider !== 'azure-openai') return {};
  const deployments = (mc.deploymentConfig as VkDeployment[] | undefined) ?? [];
  const list = deployments.length
    ? deployments
    : mc.deploymentName && mc.apiVersion
      ? [{ deploymentName: String(mc.deploymentName), apiVersion: String(mc.apiVersion), is_default: true }]
      : [];
  return {
    azure_auth_mode: 'default',
    azure_resource_name: mc.resourceName,
    azure_deployment_config: list.map((d) => ({
      azure_api_version: d.apiVersion,
      azure_deployment_name: d.deploymentName,
      azure_model_slug: d.alias ?? d.deploymentName,
      ...(d.alias ? { alias: d.alias } : {}),
      ...(d.is_default !== undefined ? { is_default: d.is_default } : {}),
    })),
  };
}

export interface MigratedVirtualKey {
  integration_id: string;
  integration_slug: string;
  provider_id: string;
  provider_slug: string;
}

export async function migrateVirtualKey(em: EntityManager, box: SecretBox, actor: Actor, meta: RequestMeta, input: unknown): Promise<MigratedVirtualKey> {
  authorize(actor, 'virtual_keys.update');
  authorize(actor, 'integrations.create');
  const body = parseWith(migrateSchema, input);
  return em.transactional(async (tx) => {
    const vk = await findProvider(tx, actor, 'virtual_key', body.slug, body.workspace_id, true);
    authorize(actor, 'virtual_keys.update', { workspaceId: vk.workspaceId });
    const provider = vk.aiProviderId ?? 'openai';
    let configurations: Record<string, unknown>;
    try {
      configurations = checkedConfigurations(provider, configurationsOf(provider, vk.modelConfig ?? {}));
    } catch (err) {
      if (err instanceof AppError) throw new AppError(400, 'invalid_request_error', 'not_migratable', `The virtual key's model_config cannot become an integration: ${err.message}`, 'slug');
      throw err;
    }
    const wanted = body.integration_slug ?? vk.slug;
    const taken = (await tx.count(IntegrationSchema, { organisationId: vk.organisationId, slug: wanted })) > 0;
    if (taken && body.integration_slug) throw new AppError(409, 'conflict_error', 'slug_taken', `The slug ${wanted} is already used by an integration`, 'integration_slug');
    const integrationSlug = taken ? `${slugifyName(vk.slug, 'integration').slice(0, 240)}-${randomSuffix()}` : wanted;
    const id = crypto.randomUUID();
    const key = vk.keySealed ? box.open(vk.keySealed, virtualKeyContext(vk.id)) : null;
    const { plain, secret } = splitSecrets(configurations);
    tx.create(IntegrationSchema, {
      id,
      organisationId: vk.organisationId,
      workspaceId: vk.workspaceId,
      name: vk.name,
      slug: integrationSlug,
      aiProviderId: provider,
      description: `Migrated from virtual key ${vk.slug}`,
      status: 'active',
      keySealed: key ? box.seal(key, keyContext(id)) : null,
      keyMask: key ? maskSecret(key) : null,
      configurations: plain,
      secretsSealed: sealSecretConfigurations(box, id, secret),
      secretMappings: (vk.secretMappings ?? null)?.map((m) => ({ ...m, target_field: String(m.target_field).replace(/^model_config\./, 'configurations.') })) ?? null,
      pricingAdjustments: null,
      allowAllModels: true,
      globalWorkspaceAccess: null,
    });
    await tx.flush();
    vk.kind = 'provider';
    vk.integrationId = id;
    vk.aiProviderId = null;
    vk.keySealed = null;
    vk.keyMask = null;
    vk.modelConfig = null;
    vk.secretMappings = null;
    vk.updatedAt = new Date();
    recordAudit(tx, actor, meta, {
      action: 'virtual_key.migrate',
      targetType: 'virtual_key',
      targetId: vk.id,
      workspaceId: vk.workspaceId,
      details: { slug: vk.slug, integration_id: id, integration_slug: integrationSlug },
    });
    await tx.flush();
    return { integration_id: id, integration_slug: integrationSlug, provider_id: vk.id, provider_slug: vk.slug };
  });
}
