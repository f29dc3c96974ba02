import type { EntityManager } from '@mikro-orm/postgresql';
import { conditionsSchema, groupBySchema, type PolicyKind } from '../../domain/policies/conditions.ts';
import { parseWith } from '../../domain/validation.ts';
import { parseField } from './parse-field.ts';
import { RateLimitPolicySchema } from '../../persistence/entities/index.ts';
import type { Actor, RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { lockRateLimitPolicy } from './find-policy.ts';
import { createRateLimitPolicySchema, updateRateLimitPolicySchema } from './policy-input.ts';
import { editorOf, policyWorkspace } from './policy-workspace.ts';
import { RATE_LIMIT_OBJECT } from './policy-view.ts';

export interface CreatedPolicy {
  id: string;
  object: string;
}

/** POST /policies/rate-limits → `{id, object}` (control-plane-schemas 2.11; `target` from gateway-spec). */
export async function createRateLimitPolicy(em: EntityManager, actor: Actor, meta: RequestMeta, input: unknown): Promise<CreatedPolicy> {
  authorize(actor, 'rate_limit_policies.create');
  const body = parseWith(createRateLimitPolicySchema, input);
  const kind: PolicyKind = { kind: 'rate_limit', target: body.target ?? 'llm' };
  const conditions = parseField('conditions', conditionsSchema(kind), body.conditions);
  const groupBy = parseField('group_by', groupBySchema(kind), body.group_by);
  const workspaceId = await policyWorkspace(em, actor, body);
  authorize(actor, 'rate_limit_policies.create', { workspaceId });
  return em.transactional(async (tx) => {
    const id = crypto.randomUUID();
    tx.create(RateLimitPolicySchema, {
      id,
      organisationId: actor.organisationId,
      workspaceId,
      name: body.name ?? null,
      target: kind.target,
      conditions,
      groupBy,
      type: body.type,
      unit: body.unit,
      value: body.value,
      status: 'active',
      createdBy: editorOf(actor),
    });
    recordAudit(tx, actor, meta, {
      action: 'rate_limit_policy.create',
      targetType: 'rate_limit_policy',
      targetId: id,
      workspaceId,
      details: { name: body.name ?? null, target: kind.target, conditions, group_by: groupBy, type: body.type, unit: body.unit, value: body.value, workspace_id: workspaceId },
    });
    await tx.flush();
    return { id, object: RATE_LIMIT_OBJECT };
  });
}

export interface ChangedPolicy {
  id: string;
}

/** PUT /policies/rate-limits/{id}: `name`, `unit`, `value`, `conditions` (checked against the policy's target) → `{}`. */
export async function updateRateLimitPolicy(em: EntityManager, actor: Actor, meta: RequestMeta, id: string, input: unknown): Promise<ChangedPolicy> {
  authorize(actor, 'rate_limit_policies.update');
  const body = parseWith(updateRateLimitPolicySchema, input);
  return em.transactional(async (tx) => {
    const p = await lockRateLimitPolicy(tx, actor, id);
    authorize(actor, 'rate_limit_policies.update', { workspaceId: p.workspaceId });
    const kind: PolicyKind = { kind: 'rate_limit', target: p.target === 'mcp_tools' ? 'mcp_tools' : 'llm' };
    const conditions = body.conditions === undefined ? undefined : parseField('conditions', conditionsSchema(kind), body.conditions);
    if (body.name !== undefined) p.name = body.name;
    if (body.unit !== undefined) p.unit = body.unit;
    if (body.value !== undefined) p.value = body.value;
    if (conditions !== undefined) p.conditions = conditions;
    p.updatedAt = new Date();
    recordAudit(tx, actor, meta, {
      action: 'rate_limit_policy.update',
      targetType: 'rate_limit_policy',
      targetId: p.id,
      workspaceId: p.workspaceId,
      details: { ...body, ...(conditions ? { conditions } : {}) },
    });
    await tx.flush();
    return { id: p.id };
  });
}

/** DELETE /policies/rate-limits/{id} → `{}`: archived (status `archived`, listed with `status=archived`), never enforced again. */
export async function deleteRateLimitPolicy(em: EntityManager, actor: Actor, meta: RequestMeta, id: string): Promise<ChangedPolicy> {
  authorize(actor, 'rate_limit_policies.delete');
  return em.transactional(async (tx) => {
    const p = await lockRateLimitPolicy(tx, actor, id);
    authorize(actor, 'rate_limit_policies.delete', { workspaceId: p.workspaceId });
    p.status = 'archived';
    p.updatedAt = new Date();
    recordAudit(tx, actor, meta, { action: 'rate_limit_policy.delete', targetType: 'rate_limit_policy', targetId: p.id, workspaceId: p.workspaceId, details: { name: p.name ?? null } });
    await tx.flush();
    return { id: p.id };
  });
}
