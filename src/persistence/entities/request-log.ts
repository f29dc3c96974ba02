import { defineEntity, type InferEntity } from '@mikro-orm/core';

export const RequestLogSchema = defineEntity({
  name: 'RequestLog',
  tableName: 'request_log',
  properties: (p) => ({
    id: p.uuid().primary(),
    idempotencyId: p.string().unique(),
    requestId: p.string(),
    attempt: p.integer(),
    traceId: p.string(),
    organisationId: p.uuid(),
    workspaceId: p.uuid().nullable(),
    apiKeyId: p.uuid().nullable(),
    provider: p.string(),
    model: p.string().nullable(),
    endpoint: p.string(),
    method: p.string(),
    status: p.integer(),
    latencyMs: p.integer(),
    upstreamLatencyMs: p.integer(),
    promptTokens: p.integer(),
    completionTokens: p.integer(),
    totalTokens: p.integer(),
    isStream: p.boolean(),
    errorCode: p.string().nullable(),
    metadata: p.json<Record<string, unknown>>().nullable(),
    startedAt: p.datetime(),
    createdAt: p.datetime().onCreate(() => new Date()),
  }),
});
export type RequestLog = InferEntity<typeof RequestLogSchema>;
