import type { PriceSheet } from '../../src/domain/pricing/price-sheet.ts';
import { getModelPricing } from '../../src/services/pricing/read-pricing.ts';
import { builder } from '../builder.ts';

// Model pricing (control-plane-schemas 2.21): public, so the resolver never reads ctx.actor
// (reading it is what demands credentials, graphql/context.ts).

const ModelPricingRef = builder.objectRef<PriceSheet>('ModelPricing').implement({
  description: 'A model price sheet; prices in USD cents per token.',
  fields: (t) => ({
    pay_as_you_go: t.field({ type: 'JSON', resolve: (s) => s.pay_as_you_go }),
    calculate: t.field({ type: 'JSON', description: 'Cost formulas as expression trees', resolve: (s) => s.calculate }),
    currency: t.exposeString('currency'),
    finetune_config: t.field({ type: 'JSON', resolve: (s) => s.finetune_config }),
  }),
});

builder.queryFields((t) => ({
  modelPricing: t.field({
    type: ModelPricingRef,
    args: { provider: t.arg.string({ required: true }), model: t.arg.string({ required: true }) },
    resolve: (_, a) => getModelPricing(a.provider, a.model),
  }),
}));
