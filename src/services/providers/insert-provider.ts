import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../domain/errors.ts';
import { ProviderSchema } from '../../persistence/entities/index.ts';
import type { Provider } from '../../persistence/entities/provider.ts';

export const slugTaken = (slug: string, param: string): AppError =>
  new AppError(409, 'conflict_error', 'slug_taken', `The slug ${slug} is already used by a provider or virtual key of this workspace`, param);

/** 409 when the workspace already has a provider or virtual key with this slug (one namespace: `@slug`). */
export async function assertSlugFree(tx: EntityManager, workspaceId: string, slug: string, param: string): Promise<void> {
  if (await tx.count(ProviderSchema, { workspaceId, slug })) throw slugTaken(slug, param);
}

export interface NewProvider {
  organisationId: string;
  workspaceId: string;
  kind: 'provider' | 'virtual_key';
  name: string;
  slug: string;
  integrationId?: string | null;
  aiProviderId?: string | null;
  note?: string | null;
  usageLimits?: Record<string, unknown> | null;
  rateLimits?: Record<string, unknown>[] | null;
  expiresAt?: Date | null;
  keySealed?: string | null;
  keyMask?: string | null;
  modelConfig?: Record<string, unknown> | null;
  secretMappings?: Record<string, unknown>[] | null;
}

/** Queues a provider row in the caller's transaction (the caller checked the slug and authorized). */
export function insertProvider(tx: EntityManager, row: NewProvider & { id?: string }): Provider {
  return tx.create(ProviderSchema, {
    id: row.id ?? crypto.randomUUID(),
    integrationId: null,
    aiProviderId: null,
    note: null,
    usageLimits: null,
    rateLimits: null,
    expiresAt: null,
    resetUsage: null,
    keySealed: null,
    keyMask: null,
    modelConfig: null,
    secretMappings: null,
    status: 'active',
    ...row,
  });
}
