import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidParameter } from '../../domain/errors.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import { SecretReferenceSchema } from '../../persistence/entities/index.ts';
import type { Actor } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { page, pageWindow, type Page, type PageArgs } from '../paging.ts';
import { findSecretReference, openAuthConfig } from './find-secret-reference.ts';
import { MANAGER_TYPES } from './secret-reference-input.ts';
import { toSecretReferenceItemView, toSecretReferenceView, type SecretReferenceItemView, type SecretReferenceView } from './secret-reference-view.ts';

export interface SecretReferenceListArgs extends PageArgs {
  managerType?: string | null;
  /** JSON-encoded object: references carrying every one of these tags. */
  tags?: string | null;
  /** Name or slug contains (1–255). */
  search?: string | null;
}

function parseTags(raw: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw invalidParameter('tags', 'tags must be a JSON-encoded object');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed) || Object.values(parsed).some((v) => typeof v !== 'string')) {
    throw invalidParameter('tags', 'tags must be a JSON object of strings');
  }
  return parsed as Record<string, string>;
}

const like = (s: string): string => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** GET /secret-references (control-plane-schemas 1.1: page_size 1–100, default 20). */
export async function listSecretReferences(em: EntityManager, actor: Actor, args: SecretReferenceListArgs = {}): Promise<Page<SecretReferenceItemView>> {
  authorize(actor, 'secret_references.list');
  const win = pageWindow(args, { defaultSize: 20, maxSize: 100 });
  if (args.managerType && !(MANAGER_TYPES as readonly string[]).includes(args.managerType)) {
    throw invalidParameter('manager_type', `manager_type must be one of ${MANAGER_TYPES.join(', ')}`);
  }
  const search = args.search ?? null;
  if (search !== null && (search.length < 1 || search.length > 255)) throw invalidParameter('search', 'search must be 1 to 255 characters');
  const tags = args.tags ? parseTags(args.tags) : null;
  const where: Record<string, unknown> = { organisationId: actor.organisationId };
  if (args.managerType) where.managerType = args.managerType;
  if (search) where.$or = [{ name: { $ilike: like(search) } }, { slug: { $ilike: like(search) } }];
  if (tags) {
    // jsonb containment: every given tag, with its value.
    const rows = await em.execute<{ id: string }[]>('select id from secret_reference where organisation_id = ? and tags @> ?::jsonb', [actor.organisationId, JSON.stringify(tags)]);
    where.id = { $in: rows.map((r) => r.id) };
  }
  const [rows, total] = await em.findAndCount(SecretReferenceSchema, where, { orderBy: { createdAt: 'asc', id: 'asc' }, limit: win.limit, offset: win.offset });
  return page(rows.map(toSecretReferenceItemView), total);
}

/** GET /secret-references/{id or slug}: the detail object, credentials in auth_config masked. */
export async function getSecretReference(em: EntityManager, actor: Actor, box: SecretBox, idOrSlug: string): Promise<SecretReferenceView> {
  authorize(actor, 'secret_references.read');
  const r = await findSecretReference(em, actor.organisationId, idOrSlug);
  return toSecretReferenceView(r, openAuthConfig(box, r));
}
