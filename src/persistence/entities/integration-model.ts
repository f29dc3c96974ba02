import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** A model an integration offers: a catalogue model switched on/off, or a custom one (control-plane-schemas 2.4). */
export const IntegrationModelSchema = defineEntity({
  name: 'IntegrationModel',
  tableName: 'integration_model',
  properties: (p) => ({
    integrationId: p.uuid().primary(),
    slug: p.string().primary(),
    name: p.string().nullable(),
    enabled: p.boolean(),
    isCustom: p.boolean().default(false),
    isFinetune: p.boolean().default(false),
    baseModelSlug: p.string().nullable(),
    customHost: p.string().nullable(),
    customHeaders: p.json<Record<string, string>>().nullable(),
    pricingConfig: p.json<Record<string, unknown>>().nullable(),
  }),
});
export type IntegrationModel = InferEntity<typeof IntegrationModelSchema>;
