// What response() needs to know about the request it answers (the embedding encoding the
// caller asked for). The pipeline passes one CallContext object through request() and
// response() of a call, so the state hangs off it and goes when the call does.
import type { CallContext } from '../contract.ts';

const encodings = new WeakMap<CallContext, string>();

export const rememberEncoding = (ctx: CallContext, format: string): void => {
  encodings.set(ctx, format);
};
export const recallEncoding = (ctx: CallContext): string | undefined => encodings.get(ctx);
