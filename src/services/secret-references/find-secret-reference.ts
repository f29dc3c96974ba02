import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { forbidden, notFound } from '../../domain/errors.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import { SecretReferenceSchema } from '../../persistence/entities/index.ts';
import type { SecretReference } from '../../persistence/entities/secret-reference.ts';
import type { ManagerType } from './secret-reference-input.ts';
import type { SecretReferenceTarget } from './resolve-secret-reference.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Sealed values are bound to their row: a copied ciphertext does not open elsewhere. */
export const sealContext = (id: string): string => `secret_reference:${id}`;

export function openAuthConfig(box: SecretBox, r: SecretReference): Record<string, unknown> {
  return JSON.parse(box.open(r.authConfigSealed, sealContext(r.id))) as Record<string, unknown>;
}

/** By id or slug (control-plane-schemas 1.4), within one organisation; optionally locked for a change. */
export async function findSecretReference(em: EntityManager, organisationId: string, idOrSlug: string, lock = false): Promise<SecretReference> {
  const where = UUID.test(idOrSlug) ? { id: idOrSlug.toLowerCase() } : { slug: idOrSlug };
  const r = await em.findOne(SecretReferenceSchema, { ...where, organisationId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true } : {});
  if (!r) throw notFound('Secret reference', 'id');
  return r;
}

/**
 * What the provider resolver needs to fetch a secret for a workspace (SecretMapping,
 * control-plane-schemas 1.5: "a secret reference in the same org, accessible to the workspace"):
 * the reference with its auth_config opened, or 404 / 403 when the workspace may not use it.
 * `secretKey` (the mapping's override) replaces the reference's own key.
 */
export async function loadSecretReferenceForWorkspace(
  em: EntityManager,
  box: SecretBox,
  args: { organisationId: string; workspaceId: string; idOrSlug: string; secretKey?: string | null },
): Promise<SecretReferenceTarget> {
  const r = await findSecretReference(em, args.organisationId, args.idOrSlug);
  if (!r.allowAllWorkspaces && !r.allowedWorkspaces.includes(args.workspaceId)) {
    throw forbidden(`Secret reference ${r.slug} is not shared with this workspace`, 'secret_reference_not_allowed');
  }
  return {
    manager_type: r.managerType as ManagerType,
    secret_path: r.secretPath,
    secret_key: args.secretKey ?? r.secretKey ?? null,
    auth_config: openAuthConfig(box, r),
  };
}
