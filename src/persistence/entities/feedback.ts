import { defineEntity, type InferEntity } from '@mikro-orm/core';

// Feedback on a request (control-plane-schemas 2.13), linked to its log by trace id.
export const FeedbackSchema = defineEntity({
  name: 'Feedback',
  tableName: 'feedback',
  properties: (p) => ({
    id: p.uuid().primary(),
    organisationId: p.uuid(),
    workspaceId: p.uuid(),
    traceId: p.string(),
    value: p.integer(),
    weight: p.double(),
    metadata: p.json<Record<string, unknown>>().nullable(),
    apiKeyId: p.uuid().nullable(),
    userId: p.uuid().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type Feedback = InferEntity<typeof FeedbackSchema>;
