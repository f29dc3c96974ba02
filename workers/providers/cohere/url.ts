import type { CallContext } from '../contract.ts';

/** The reference gateway's Cohere base URL (paths carry the API version); a custom host replaces it exactly. */
export const COHERE_BASE_URL = 'https://api.cohere.ai';

export const cohereUrl = (ctx: CallContext, path: string): string => `${ctx.customHost ?? COHERE_BASE_URL}${path}`;

export const jsonCall = (ctx: CallContext, path: string, payload: unknown) => ({
  url: cohereUrl(ctx, path),
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: ctx.stream ? 'text/event-stream' : 'application/json' },
  body: JSON.stringify(payload),
});
