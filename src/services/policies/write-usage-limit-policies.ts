import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidParameter } from '../../domain/errors.ts';
import { conditionsSchema, groupBySchema, type PolicyKind } from '../../domain/policies/conditions.ts';
import { nextUsageResetAt, type PeriodicReset } from '../../domain/policies/limits.ts';
import { parseWith } from '../../domain/validation.ts';
import { parseField } from './parse-field.ts';
import { UsageLimitPolicySchema } from '../../persistence/entities/index.ts';
import type { Actor, RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { lockUsageLimitPolicy } from './find-policy.ts';
import { resetEntityInTx } from './policy-entities.ts';
import { createUsageLimitPolicySchema, updateUsageLimitPolicySchema } from './policy-input.ts';
import { editorOf, policyWorkspace } from './policy-workspace.ts';
import { USAGE_LIMIT_OBJECT } from './policy-view.ts';
import type { ChangedPolicy, CreatedPolicy } from './write-rate-limit-policies.ts';

const KIND: PolicyKind = { kind: 'usage_limit' };

/** alert_threshold < credit_limit (2.12); periodic_reset and periodic_reset_days exclusive (1.5). */
function checkLimits(v: { credit_limit: number; alert_threshold: number | null; periodic_reset: string | null; periodic_reset_days: number | null }): void {
  if (v.alert_threshold !== null && v.alert_threshold >= v.credit_limit) throw invalidParameter('alert_threshold', 'alert_threshold: must be less than credit_limit');
  if (v.periodic_reset !== null && v.periodic_reset_days !== null) throw invalidParameter('periodic_reset_days', 'periodic_reset_days: cannot be set together with periodic_reset');
}

/** POST /policies/usage-limits → `{id, object}`. The first reset is computed from now. */
export async function createUsageLimitPolicy(em: EntityManager, actor: Actor, meta: RequestMeta, input: unknown): Promise<CreatedPolicy> {
  authorize(actor, 'usage_limit_policies.create');
  const body = parseWith(createUsageLimitPolicySchema, input);
  const conditions = parseField('conditions', conditionsSchema(KIND), body.conditions);
  const groupBy = parseField('group_by', groupBySchema(KIND), body.group_by);
  const limits = { credit_limit: body.credit_limit, alert_threshold: body.alert_threshold ?? null, periodic_reset: body.periodic_reset ?? null, periodic_reset_days: body.periodic_reset_days ?? null };
  checkLimits(limits);
  const workspaceId = await policyWorkspace(em, actor, body);
  authorize(actor, 'usage_limit_policies.create', { workspaceId });
  return em.transactional(async (tx) => {
    const id = crypto.randomUUID();
    tx.create(UsageLimitPolicySchema, {
      id,
      organisationId: actor.organisationId,
      workspaceId,
      name: body.name ?? null,
      conditions,
      groupBy,
      type: body.type,
      creditLimit: limits.credit_limit,
      alertThreshold: limits.alert_threshold,
      periodicReset: limits.periodic_reset,
      periodicResetDays: limits.periodic_reset_days,
      nextUsageResetAt: nextUsageResetAt(limits as { periodic_reset: PeriodicReset | null; periodic_reset_days: number | null }, new Date()),
      lastResetAt: null,
      status: 'active',
      createdBy: editorOf(actor),
    });
    recordAudit(tx, actor, meta, {
      action: 'usage_limit_policy.create',
      targetType: 'usage_limit_policy',
      targetId: id,
      workspaceId,
      details: { name: body.name ?? null, conditions, group_by: groupBy, type: body.type, ...limits, workspace_id: workspaceId },
    });
    await tx.flush();
    return { id, object: USAGE_LIMIT_OBJECT };
  });
}

/**
 * PUT /policies/usage-limits/{id} → `{}`: `name`, `credit_limit`, `alert_threshold`,
 * `periodic_reset` / `periodic_reset_days` (null removes: cumulative; a change restarts the
 * calendar from now), `conditions`, and `reset_usage_for_value` (zero one value key's counter).
 */
export async function updateUsageLimitPolicy(em: EntityManager, actor: Actor, meta: RequestMeta, id: string, input: unknown): Promise<ChangedPolicy> {
  authorize(actor, 'usage_limit_policies.update');
  const body = parseWith(updateUsageLimitPolicySchema, input);
  const conditions = body.conditions === undefined ? undefined : parseField('conditions', conditionsSchema(KIND), body.conditions);
  return em.transactional(async (tx) => {
    const p = await lockUsageLimitPolicy(tx, actor, id);
    authorize(actor, 'usage_limit_policies.update', { workspaceId: p.workspaceId });
    // Setting one reset form clears the other (they are exclusive); both at once is refused.
    const resetChanged = body.periodic_reset !== undefined || body.periodic_reset_days !== undefined;
    const next = {
      credit_limit: body.credit_limit ?? Number(p.creditLimit),
      alert_threshold: body.alert_threshold !== undefined ? body.alert_threshold : p.alertThreshold == null ? null : Number(p.alertThreshold),
      periodic_reset: body.periodic_reset !== undefined ? body.periodic_reset : body.periodic_reset_days != null ? null : (p.periodicReset ?? null),
      periodic_reset_days: body.periodic_reset_days !== undefined ? body.periodic_reset_days : body.periodic_reset != null ? null : (p.periodicResetDays ?? null),
    };
    checkLimits(next);
    if (body.name !== undefined) p.name = body.name;
    p.creditLimit = next.credit_limit;
    p.alertThreshold = next.alert_threshold;
    if (resetChanged) {
      p.periodicReset = next.periodic_reset;
      p.periodicResetDays = next.periodic_reset_days;
      p.nextUsageResetAt = nextUsageResetAt(next as { periodic_reset: PeriodicReset | null; periodic_reset_days: number | null }, new Date());
    }
    if (conditions !== undefined) p.conditions = conditions;
    p.updatedAt = new Date();
    await tx.flush();
    if (body.reset_usage_for_value !== undefined) await resetEntityInTx(tx, p.id, { valueKey: body.reset_usage_for_value });
    recordAudit(tx, actor, meta, {
      action: 'usage_limit_policy.update',
      targetType: 'usage_limit_policy',
      targetId: p.id,
      workspaceId: p.workspaceId,
      details: { ...body, ...(conditions ? { conditions } : {}) },
    });
    await tx.flush();
    return { id: p.id };
  });
}

/** DELETE /policies/usage-limits/{id} → `{}`: archived (soft delete, 2.12); workers skip archived policies. */
export async function deleteUsageLimitPolicy(em: EntityManager, actor: Actor, meta: RequestMeta, id: string): Promise<ChangedPolicy> {
  authorize(actor, 'usage_limit_policies.delete');
  return em.transactional(async (tx) => {
    const p = await lockUsageLimitPolicy(tx, actor, id);
    authorize(actor, 'usage_limit_policies.delete', { workspaceId: p.workspaceId });
    p.status = 'archived';
    p.updatedAt = new Date();
    recordAudit(tx, actor, meta, { action: 'usage_limit_policy.delete', targetType: 'usage_limit_policy', targetId: p.id, workspaceId: p.workspaceId, details: { name: p.name ?? null } });
    await tx.flush();
    return { id: p.id };
  });
}
