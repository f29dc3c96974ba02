// What response() needs to know about the request it answers (rerank documents, the embedding
// encoding the caller asked for). The pipeline passes one CallContext object through request(),
// response() and stream() of a call, so the state hangs off it and goes when the call does.
import type { CallContext } from '../contract.ts';

export interface CohereCallState {
  documents?: string[];
  returnDocuments?: boolean;
  encodingFormat?: string;
}

const states = new WeakMap<CallContext, CohereCallState>();

export const rememberCall = (ctx: CallContext, state: CohereCallState): void => {
  states.set(ctx, state);
};
export const recallCall = (ctx: CallContext): CohereCallState => states.get(ctx) ?? {};
