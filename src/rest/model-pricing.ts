import { fieldOrError, json } from './graphql-result.ts';
import type { RestContext, RestRoute } from './types.ts';

// Model pricing (api-catalogue "Model Pricing (1)"; control-plane-schemas 2.21): public, host root,
// no `/v1`. Model ids may contain slashes (`meta-llama/llama-4-scout-…`, `openai/gpt-oss-120b`):
// given raw or %2F-encoded, both reach the same sheet.

const GET = `query P($provider: String!, $model: String!) { modelPricing(provider: $provider, model: $model) { pay_as_you_go calculate currency finetune_config } }`;

async function get(ctx: RestContext): Promise<Response> {
  const model = [ctx.params.model, ctx.params.model2, ctx.params.model3].filter((s) => s !== undefined).join('/');
  const out = fieldOrError<Record<string, unknown>>(await ctx.run(GET, { provider: ctx.params.provider, model }, ctx.request, ctx.ip), 'modelPricing');
  return out.ok ? json(out.value) : out.response;
}

export const modelPricingRoutes: RestRoute[] = [
  { method: 'GET', path: '/model-configs/pricing/:provider/:model', handler: get },
  { method: 'GET', path: '/model-configs/pricing/:provider/:model/:model2', handler: get },
  { method: 'GET', path: '/model-configs/pricing/:provider/:model/:model2/:model3', handler: get },
];
