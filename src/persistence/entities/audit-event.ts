import { defineEntity, type InferEntity } from '@mikro-orm/core';

export const AuditEventSchema = defineEntity({
  name: 'AuditEvent',
  tableName: 'audit_event',
  properties: (p) => ({
    id: p.uuid().primary(),
    organisationId: p.uuid(),
    workspaceId: p.uuid().nullable(),
    actorType: p.enum(['api_key', 'user', 'system']),
    actorId: p.string().nullable(),
    /** The person behind the action, when the credential belongs to one. */
    userId: p.uuid().nullable(),
    method: p.string().nullable(),
    uri: p.string().nullable(),
    responseStatusCode: p.integer().default(200),
    action: p.string(),
    targetType: p.string(),
    targetId: p.string().nullable(),
    ip: p.string().nullable(),
    userAgent: p.string().nullable(),
    requestDetails: p.json<Record<string, unknown>>(),
    createdAt: p.datetime().onCreate(() => new Date()),
  }),
});
export type AuditEvent = InferEntity<typeof AuditEventSchema>;
