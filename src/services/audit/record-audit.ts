import type { EntityManager } from '@mikro-orm/postgresql';
import { redactSecrets } from '../../domain/redact.ts';
import { AuditEventSchema } from '../../persistence/entities/index.ts';
import type { Actor, RequestMeta } from '../auth/actor.ts';

export interface AuditEntry {
  action: string;
  targetType: string;
  targetId: string | null;
  workspaceId?: string | null;
  details?: Record<string, unknown>;
}

/**
 * Queues an audit event in the caller's unit of work: it is written in the same
 * transaction as the change it describes, or not at all (spec: What the service does, 7).
 */
export function recordAudit(em: EntityManager, actor: Actor | null, meta: RequestMeta | null, entry: AuditEntry): void {
  em.create(AuditEventSchema, {
    id: crypto.randomUUID(),
    organisationId: actor?.organisationId ?? (entry.details?.organisation_id as string),
    workspaceId: entry.workspaceId ?? null,
    actorType: actor ? 'api_key' : 'system',
    actorId: actor?.keyId ?? null,
    userId: actor?.userId ?? null,
    method: meta?.method ?? null,
    uri: meta?.uri?.slice(0, 2048) ?? null,
    action: entry.action,
    targetType: entry.targetType,
    targetId: entry.targetId,
    ip: meta?.ip ?? null,
    userAgent: meta?.userAgent?.slice(0, 512) ?? null,
    requestDetails: redactSecrets({ request_id: meta?.requestId ?? null, ...entry.details }) as Record<string, unknown>,
  });
}
