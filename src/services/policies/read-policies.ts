import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidParameter } from '../../domain/errors.ts';
import { POLICY_STATUSES, RATE_LIMIT_TYPES, RATE_LIMIT_UNITS, USAGE_LIMIT_TYPES } from '../../domain/policies/limits.ts';
import { POLICY_TARGETS } from '../../domain/policies/conditions.ts';
import { RateLimitPolicySchema, UsageLimitPolicyEntitySchema, UsageLimitPolicySchema } from '../../persistence/entities/index.ts';
import type { Actor } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { page, pageWindow, type Page, type PageArgs } from '../paging.ts';
import { findVisibleRateLimitPolicy, findVisibleUsageLimitPolicy } from './find-policy.ts';
import { listWorkspace } from './policy-workspace.ts';
import { rollUsagePeriod } from './usage-period.ts';
import { toRateLimitPolicyView, toUsageLimitPolicyView, type RateLimitPolicyView, type UsageLimitPolicyView } from './policy-view.ts';

function oneOf<T extends string>(name: string, value: string | null | undefined, allowed: readonly T[]): T | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw invalidParameter(name, `${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

export interface RateLimitListArgs extends PageArgs {
  workspaceId?: string | null;
  status?: string | null;
  type?: string | null;
  unit?: string | null;
  target?: string | null;
}

/** GET /policies/rate-limits: filters workspace_id, status (default active), type, unit, target; oldest first. */
export async function listRateLimitPolicies(em: EntityManager, actor: Actor, args: RateLimitListArgs = {}): Promise<Page<RateLimitPolicyView>> {
  authorize(actor, 'rate_limit_policies.list');
  const win = pageWindow(args);
  const where = {
    organisationId: actor.organisationId,
    status: oneOf('status', args.status, POLICY_STATUSES) ?? 'active',
    ...optional('type', oneOf('type', args.type, RATE_LIMIT_TYPES)),
    ...optional('unit', oneOf('unit', args.unit, RATE_LIMIT_UNITS)),
    ...optional('target', oneOf('target', args.target, POLICY_TARGETS)),
    ...optional('workspaceId', await listWorkspace(em, actor, args.workspaceId)),
  };
  const [rows, total] = await em.findAndCount(RateLimitPolicySchema, where, { orderBy: { createdAt: 'asc', id: 'asc' }, limit: win.limit, offset: win.offset });
  return page(rows.map(toRateLimitPolicyView), total);
}

const optional = <K extends string, V>(key: K, value: V | null | undefined): Partial<Record<K, V>> =>
  (value === null || value === undefined ? {} : { [key]: value }) as Partial<Record<K, V>>;

export async function getRateLimitPolicy(em: EntityManager, actor: Actor, id: string, status?: string | null): Promise<RateLimitPolicyView> {
  authorize(actor, 'rate_limit_policies.read');
  return toRateLimitPolicyView(await findVisibleRateLimitPolicy(em, actor, id, oneOf('status', status, POLICY_STATUSES)));
}

export interface UsageLimitListArgs extends PageArgs {
  workspaceId?: string | null;
  status?: string | null;
  type?: string | null;
}

/** GET /policies/usage-limits: filters workspace_id, status (default active), type. */
export async function listUsageLimitPolicies(em: EntityManager, actor: Actor, args: UsageLimitListArgs = {}): Promise<Page<UsageLimitPolicyView>> {
  authorize(actor, 'usage_limit_policies.list');
  const win = pageWindow(args);
  const where = {
    organisationId: actor.organisationId,
    status: oneOf('status', args.status, POLICY_STATUSES) ?? 'active',
    ...optional('type', oneOf('type', args.type, USAGE_LIMIT_TYPES)),
    ...optional('workspaceId', await listWorkspace(em, actor, args.workspaceId)),
  };
  const [rows, total] = await em.findAndCount(UsageLimitPolicySchema, where, { orderBy: { createdAt: 'asc', id: 'asc' }, limit: win.limit, offset: win.offset });
  return page(rows.map((p) => toUsageLimitPolicyView(p)), total);
}

/** GET /policies/usage-limits/{id}: `include_usage` adds value_key_usage_map (of the current period). */
export async function getUsageLimitPolicy(em: EntityManager, actor: Actor, id: string, opts: { status?: string | null; includeUsage?: boolean | null } = {}): Promise<UsageLimitPolicyView> {
  authorize(actor, 'usage_limit_policies.read');
  const found = await findVisibleUsageLimitPolicy(em, actor, id, oneOf('status', opts.status, POLICY_STATUSES));
  if (!opts.includeUsage) return toUsageLimitPolicyView(found);
  const policy = await rollUsagePeriod(em, found.id);
  const entities = await em.find(UsageLimitPolicyEntitySchema, { policyId: policy.id }, { orderBy: { valueKey: 'asc' } });
  return toUsageLimitPolicyView(policy, entities);
}
