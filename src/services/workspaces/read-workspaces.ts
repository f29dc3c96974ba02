import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidParameter, notFound } from '../../domain/errors.ts';
import { WorkspaceSchema } from '../../persistence/entities/index.ts';
import type { Workspace } from '../../persistence/entities/workspace.ts';
import { isOrganisationKey, type Actor } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { page, pageWindow, type Page, type PageArgs } from '../paging.ts';
import { findWorkspace } from './find-workspace.ts';
import { WORKSPACE_STATUSES, type WorkspaceStatus } from './workspace-input.ts';
import { toWorkspaceView, type WorkspaceView } from './workspace-view.ts';

export interface ListWorkspacesArgs extends PageArgs {
  /** Case-sensitive part of the name. */
  name?: string | null;
  exactName?: string | null;
  /** Archived workspaces are listed only when asked for. */
  status?: string[] | null;
}

const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export async function listWorkspaces(em: EntityManager, actor: Actor, args: ListWorkspacesArgs): Promise<Page<WorkspaceView>> {
  authorize(actor, 'workspaces.list');
  const window = pageWindow(args);
  const statuses = args.status?.length ? args.status : ['active'];
  for (const s of statuses) {
    if (!(WORKSPACE_STATUSES as readonly string[]).includes(s)) throw invalidParameter('status', `status must be a comma-separated list of ${WORKSPACE_STATUSES.join(', ')}`);
  }
  const where: Record<string, unknown> = { organisationId: actor.organisationId, status: { $in: statuses as WorkspaceStatus[] } };
  const name: Record<string, unknown> = {};
  if (args.name) name.$like = `%${escapeLike(args.name)}%`;
  if (args.exactName != null && args.exactName !== '') name.$eq = args.exactName;
  if (Object.keys(name).length) where.name = name;
  const [rows, total] = await em.findAndCount(WorkspaceSchema, where, { orderBy: { createdAt: 'asc', id: 'asc' }, ...window });
  return page(rows.map(toWorkspaceView), total);
}

/**
 * A workspace by id or slug. Organisation keys need `workspaces.read`; a workspace key may read
 * its own workspace (and nothing else: other workspaces are simply not there for it).
 */
export async function getWorkspace(em: EntityManager, actor: Actor, idOrSlug: string, opts: { nameFormat?: string | null } = {}): Promise<WorkspaceView> {
  if (opts.nameFormat != null && opts.nameFormat !== 'plain') throw invalidParameter('name_format', 'name_format must be plain');
  if (isOrganisationKey(actor)) authorize(actor, 'workspaces.read');
  const ws = await findWorkspace(em, actor.organisationId, idOrSlug);
  if (!ws || (!isOrganisationKey(actor) && ws.id !== actor.workspaceId)) throw notFound('Workspace', 'id');
  // Names are stored and answered as given: `name_format=plain` asks for exactly that.
  return toWorkspaceView(ws);
}

/** For mutations: the workspace or 404 (the caller has already been authorised). */
export async function requireWorkspace(em: EntityManager, actor: Actor, idOrSlug: string, param = 'id'): Promise<Workspace> {
  const ws = await findWorkspace(em, actor.organisationId, idOrSlug);
  if (!ws) throw notFound('Workspace', param);
  return ws;
}
