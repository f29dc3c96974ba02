import type { EntityManager } from '@mikro-orm/postgresql';
import { integrationTarget, virtualKeyTarget, type WorkerProviderTarget } from '../../domain/integrations/worker-credentials.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import { IntegrationModelSchema, IntegrationSchema, ProviderSchema } from '../../persistence/entities/index.ts';
import { openKey, openSecretConfigurations } from '../integrations/integration-secrets.ts';
import { toIntegrationModelView } from '../integrations/read-integrations.ts';
import { workspaceAccess } from '../integrations/workspace-access.ts';
import { loadSecretReferenceForWorkspace } from '../secret-references/find-secret-reference.ts';
import { resolveSecretReference, type SecretResolverOptions } from '../secret-references/resolve-secret-reference.ts';
import { latestChangeVersion, type WorkerResolution, type WorkerResolver } from '../sync/worker-resolver.ts';
import { providerStatus } from './provider-view.ts';
import { virtualKeyContext } from './virtual-keys.ts';

// Key choice: `<workspace_id>:<slug>`. The data plane names a provider as `@slug` (or a legacy
// virtual key by its slug in x-gateway-virtual-key) within the workspace of the calling API
// key, and slugs are unique per workspace across both kinds, so the pair names exactly one row.
// The 0008 migration's triggers write the same key: on a provider/virtual-key row change, and
// for every provider of an integration whose credentials, configuration, models or workspace
// access changed.
export const PROVIDER_RESOURCE_TYPE = 'provider';

export const providerResourceKey = (workspaceId: string, slug: string): string => `${workspaceId}:${slug}`;

/** The worker payload of a provider or virtual key (credentials decrypted: only for workers, never logged). */
export interface ProviderPayload extends WorkerProviderTarget {
  id: string;
  kind: 'provider' | 'virtual_key';
  slug: string;
  name: string;
  organisation_id: string;
  workspace_id: string;
  /** `active`, `exhausted` or `expired`: a worker refuses all but `active`. */
  status: string;
  expires_at: string | null;
  integration: { id: string; slug: string; ai_provider_id: string } | null;
  /** Models: with allow_all_models any model not switched off passes; else only enabled ones. */
  models: {
    allow_all_models: boolean;
    items: ReturnType<typeof toIntegrationModelView>[];
  };
  pricing_adjustments: Record<string, unknown> | null;
  limits: {
    provider: { usage_limits: Record<string, unknown> | null; rate_limits: Record<string, unknown>[] | null };
    /** The integration's limits for this workspace (integration workspaces). */
    workspace: { usage_limits: Record<string, unknown>[] | null; rate_limits: Record<string, unknown>[] | null; reset_usage_at: string | null };
  };
  /** Stored as given; resolving secret references (/secret-references) happens elsewhere. */
  secret_mappings: Record<string, unknown>[] | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Resolves `provider` keys. null when there is no such provider, or when its integration no
 * longer serves the workspace (access revoked): for the worker it is not there.
 */
interface SecretMapping {
  target_field: string;
  secret_reference_id: string;
  secret_key?: string | null;
  value_format?: 'json' | 'string' | null;
}

/**
 * Secret mappings (control-plane-schemas 1.5) resolved just before the credentials go to a worker:
 * each target field (`key`, `configurations.<f>` / `model_config.<f>`) takes the secret's value.
 */
async function applySecretMappings(
  em: EntityManager,
  box: SecretBox,
  opts: SecretResolverOptions,
  where: { organisationId: string; workspaceId: string },
  mappings: SecretMapping[] | null | undefined,
  key: string | null,
  fields: Record<string, unknown>,
  fieldsPrefix: string,
): Promise<{ key: string | null; fields: Record<string, unknown> }> {
  if (!mappings?.length) return { key, fields };
  const out = { key, fields: { ...fields } };
  for (const m of mappings) {
    const target = await loadSecretReferenceForWorkspace(em, box, { ...where, idOrSlug: m.secret_reference_id, secretKey: m.secret_key ?? null });
    const raw = await resolveSecretReference(target, opts);
    const value: unknown = m.value_format === 'json' ? JSON.parse(raw) : raw;
    if (m.target_field === 'key') out.key = typeof value === 'string' ? value : JSON.stringify(value);
    else if (m.target_field.startsWith(fieldsPrefix)) out.fields[m.target_field.slice(fieldsPrefix.length)] = value;
  }
  return out;
}

export function providerWorkerResolver(box: SecretBox, secretOptions: SecretResolverOptions = {}): WorkerResolver {
  return {
    type: PROVIDER_RESOURCE_TYPE,
    async resolve(em: EntityManager, key: string): Promise<WorkerResolution | null> {
      const sep = key.indexOf(':');
      const workspaceId = key.slice(0, sep);
      const slug = key.slice(sep + 1);
      if (sep < 0 || !UUID.test(workspaceId) || !slug) return null;
      const version = await latestChangeVersion(em, PROVIDER_RESOURCE_TYPE, key);
      const p = await em.findOne(ProviderSchema, { workspaceId, slug }, { refresh: true });
      if (!p) return null;
      // A secret that cannot be fetched makes the provider unusable, not the control plane: the
      // worker refuses it with the reason instead of reporting an outage.
      const secrets = (mappings: SecretMapping[] | null, key: string | null, fields: Record<string, unknown>, prefix: string) =>
        applySecretMappings(em, box, secretOptions, { organisationId: p.organisationId, workspaceId: p.workspaceId }, mappings, key, fields, prefix).then(
          (r) => ({ ok: true as const, ...r }),
          (err: unknown) => ({ ok: false as const, reason: err instanceof Error ? err.message : String(err) }),
        );
      const base = {
        id: p.id,
        kind: p.kind,
        slug: p.slug,
        name: p.name,
        organisation_id: p.organisationId,
        workspace_id: p.workspaceId,
        status: providerStatus(p),
        expires_at: p.expiresAt?.toISOString() ?? null,
        secret_mappings: p.secretMappings ?? null,
      };
      const providerLimits = { usage_limits: p.usageLimits ?? null, rate_limits: p.rateLimits ?? null };
      if (p.kind === 'virtual_key') {
        const sealed = p.keySealed ? box.open(p.keySealed, virtualKeyContext(p.id)) : null;
        const mapped = await secrets(p.secretMappings as SecretMapping[] | null, sealed, p.modelConfig ?? {}, 'model_config.');
        if (!mapped.ok) return { version, payload: { ...base, status: 'unavailable', status_reason: mapped.reason } };
        const payload: ProviderPayload = {
          ...base,
          ...virtualKeyTarget(p.aiProviderId ?? '', mapped.key, mapped.fields),
          integration: null,
          models: { allow_all_models: true, items: [] },
          pricing_adjustments: null,
          limits: { provider: providerLimits, workspace: { usage_limits: null, rate_limits: null, reset_usage_at: null } },
        };
        return { version, payload: payload as unknown as Record<string, unknown> };
      }
      const integ = await em.findOne(IntegrationSchema, { id: p.integrationId! }, { refresh: true });
      if (!integ || integ.status !== 'active') return null;
      const access = await workspaceAccess(em, integ, p.workspaceId);
      if (!access.enabled) return null;
      const mapped = await secrets(integ.secretMappings as SecretMapping[] | null, openKey(box, integ), { ...integ.configurations, ...openSecretConfigurations(box, integ) }, 'configurations.');
      if (!mapped.ok) return { version, payload: { ...base, status: 'unavailable', status_reason: mapped.reason } };
      const configurations = mapped.fields;
      const models = await em.find(IntegrationModelSchema, { integrationId: integ.id }, { orderBy: { slug: 'asc' }, refresh: true });
      const payload: ProviderPayload = {
        ...base,
        ...integrationTarget(integ.aiProviderId, mapped.key, configurations),
        secret_mappings: integ.secretMappings ?? null,
        integration: { id: integ.id, slug: integ.slug, ai_provider_id: integ.aiProviderId },
        models: { allow_all_models: integ.allowAllModels, items: models.map(toIntegrationModelView) },
        pricing_adjustments: integ.pricingAdjustments ?? null,
        limits: { provider: providerLimits, workspace: { usage_limits: access.usage_limits, rate_limits: access.rate_limits, reset_usage_at: access.reset_usage_at } },
      };
      return { version, payload: payload as unknown as Record<string, unknown> };
    },
  };
}
