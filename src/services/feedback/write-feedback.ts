// POST /feedback and PUT /feedback/{id} (api-catalogue "Feedback (2)"). Only workspace keys may
// create or update feedback (gateway-spec, Authentication 3: "Create or update feedback — Admin
// key no, Workspace key yes"); authorize() refuses organisation keys for these scopes. Feedback
// belongs to the key's workspace and links to that workspace's request log by trace id — it may
// arrive before the worker's batch with the log, so the log is not required to exist yet.
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../domain/errors.ts';
import { parseWith } from '../../domain/validation.ts';
import { FeedbackSchema } from '../../persistence/entities/index.ts';
import type { Actor, RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { createFeedbackSchema, updateFeedbackSchema } from './feedback-input.ts';

export interface FeedbackResult {
  status: 'success' | 'failure';
  message: string;
  feedback_ids: string[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function createFeedback(em: EntityManager, actor: Actor, meta: RequestMeta, input: unknown): Promise<FeedbackResult> {
  authorize(actor, 'feedback.create');
  const body = parseWith(createFeedbackSchema, input ?? {});
  const workspaceId = actor.workspaceId!;
  return em.transactional(async (tx) => {
    const id = crypto.randomUUID();
    tx.create(FeedbackSchema, {
      id,
      organisationId: actor.organisationId,
      workspaceId,
      traceId: body.trace_id,
      value: body.value,
      weight: body.weight ?? 1,
      metadata: (body.metadata ?? null) as Record<string, unknown> | null,
      apiKeyId: actor.keyId,
      userId: actor.userId,
    });
    recordAudit(tx, actor, meta, { action: 'feedback.create', targetType: 'feedback', targetId: id, workspaceId, details: { trace_id: body.trace_id, value: body.value, weight: body.weight ?? 1 } });
    await tx.flush();
    return { status: 'success', message: 'Feedback created', feedback_ids: [id] };
  });
}

export async function updateFeedback(em: EntityManager, actor: Actor, meta: RequestMeta, id: string, input: unknown): Promise<FeedbackResult> {
  authorize(actor, 'feedback.update');
  const body = parseWith(updateFeedbackSchema, input ?? {});
  if (!UUID.test(id)) throw notFound('Feedback', 'id');
  return em.transactional(async (tx) => {
    const fb = await tx.findOne(FeedbackSchema, { id, organisationId: actor.organisationId, workspaceId: actor.workspaceId! }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (!fb) throw notFound('Feedback', 'id');
    const before = { value: fb.value, weight: fb.weight };
    fb.value = body.value;
    if (body.weight !== undefined) fb.weight = body.weight;
    if (body.metadata !== undefined) fb.metadata = (body.metadata ?? null) as Record<string, unknown> | null;
    recordAudit(tx, actor, meta, { action: 'feedback.update', targetType: 'feedback', targetId: id, workspaceId: fb.workspaceId, details: { before, value: fb.value, weight: fb.weight } });
    await tx.flush();
    return { status: 'success', message: 'Feedback updated', feedback_ids: [id] };
  });
}
