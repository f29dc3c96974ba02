import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidParameter, notFound } from '../../domain/errors.ts';
import { UsageLimitPolicyEntitySchema } from '../../persistence/entities/index.ts';
import type { Actor, RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { page, pageWindow, type Page, type PageArgs } from '../paging.ts';
import { findVisibleUsageLimitPolicy, lockUsageLimitPolicy } from './find-policy.ts';
import { rollUsagePeriod } from './usage-period.ts';
import { toPolicyEntityView, type PolicyEntityView } from './policy-view.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface EntityListArgs extends PageArgs {
  status?: string | null;
  search?: string | null;
}

/** GET /policies/usage-limits/{id}/entities: tracked value keys with current usage (paging max 100). */
export async function listPolicyEntities(em: EntityManager, actor: Actor, policyId: string, args: EntityListArgs = {}): Promise<Page<PolicyEntityView>> {
  authorize(actor, 'usage_limit_policies.read');
  const win = pageWindow(args, { maxSize: 100 });
  if (args.status && args.status !== 'active' && args.status !== 'exhausted') throw invalidParameter('status', 'status must be one of active, exhausted');
  const found = await findVisibleUsageLimitPolicy(em, actor, policyId);
  await rollUsagePeriod(em, found.id);
  const search = args.search?.trim();
  const where = {
    policyId: found.id,
    ...(args.status ? { status: args.status } : {}),
    ...(search ? { valueKey: { $ilike: `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` } } : {}),
  };
  const [rows, total] = await em.findAndCount(UsageLimitPolicyEntitySchema, where, { orderBy: { valueKey: 'asc' }, limit: win.limit, offset: win.offset });
  return page(rows.map(toPolicyEntityView), total);
}

/**
 * Zeroes one value key's counter (`PUT …/entities/{entityId}/reset`, or `reset_usage_for_value` on
 * update, which may name a key not tracked yet: workers may count it before the control plane
 * does). Moving `reset_at` tells workers to zero their shared counter too.
 */
export async function resetEntityInTx(tx: EntityManager, policyId: string, ref: { entityId?: string; valueKey?: string }): Promise<string> {
  const now = new Date();
  if (ref.valueKey !== undefined) {
    await tx.execute(
      `insert into usage_limit_policy_entity (id, policy_id, value_key, current_usage, status, reset_at) values (?, ?, ?, 0, 'active', ?)
       on conflict (policy_id, value_key) do update set current_usage = 0, status = 'active', is_threshold_alerts_sent = false,
         is_exhausted_alerts_sent = false, reset_at = excluded.reset_at, updated_at = now()`,
      [crypto.randomUUID(), policyId, ref.valueKey, now],
    );
    return ref.valueKey;
  }
  const entity = UUID.test(ref.entityId ?? '') ? await tx.findOne(UsageLimitPolicyEntitySchema, { id: ref.entityId!.toLowerCase(), policyId }) : null;
  if (!entity) throw notFound('Usage limit policy entity', 'entityId');
  entity.currentUsage = 0;
  entity.status = 'active';
  entity.isThresholdAlertsSent = false;
  entity.isExhaustedAlertsSent = false;
  entity.resetAt = now;
  await tx.flush();
  return entity.valueKey;
}

export interface ResetEntityResult {
  id: string;
  value_key: string;
}

export async function resetPolicyEntity(em: EntityManager, actor: Actor, meta: RequestMeta, policyId: string, entityId: string): Promise<ResetEntityResult> {
  authorize(actor, 'usage_limit_policies.update');
  return em.transactional(async (tx) => {
    const p = await lockUsageLimitPolicy(tx, actor, policyId);
    authorize(actor, 'usage_limit_policies.update', { workspaceId: p.workspaceId });
    const valueKey = await resetEntityInTx(tx, p.id, { entityId });
    recordAudit(tx, actor, meta, {
      action: 'usage_limit_policy.reset_usage',
      targetType: 'usage_limit_policy',
      targetId: p.id,
      workspaceId: p.workspaceId,
      details: { entity_id: entityId, value_key: valueKey },
    });
    await tx.flush();
    return { id: p.id, value_key: valueKey };
  });
}
