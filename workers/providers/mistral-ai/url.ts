import type { CallContext, UpstreamCall } from '../contract.ts';

/** The reference gateway's Mistral base URL; a custom host replaces it exactly. */
export const MISTRAL_BASE_URL = 'https://api.mistral.ai/v1';

export const jsonCall = (ctx: CallContext, path: string, payload: unknown): UpstreamCall => ({
  url: `${ctx.customHost ?? MISTRAL_BASE_URL}${path}`,
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: ctx.stream ? 'text/event-stream' : 'application/json' },
  body: JSON.stringify(payload),
});
