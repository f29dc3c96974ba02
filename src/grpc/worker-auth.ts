import * as grpc from '@grpc/grpc-js';
import { timingSafeEqual, createHash } from 'node:crypto';
import { WORKER_TOKEN_HEADER } from '../platform/grpc-contract.ts';

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * Constant-time check of `authorization: Bearer <token>` against every accepted token (the current
 * WORKER_TOKEN and, during a rotation, WORKER_TOKEN_PREVIOUS). Each one is compared, whatever matched.
 */
export function workerTokenChecker(tokens: string | readonly (string | null | undefined)[]): (md: grpc.Metadata) => boolean {
  const list = (typeof tokens === 'string' ? [tokens] : tokens).filter((t): t is string => !!t);
  if (!list.length) throw new Error('at least one worker token is required');
  const expected = list.map((t) => digest(`Bearer ${t}`));
  return (md) => {
    const presented = md.get(WORKER_TOKEN_HEADER)[0];
    if (typeof presented !== 'string') return false;
    const got = digest(presented);
    let ok = false;
    for (const e of expected) ok = timingSafeEqual(got, e) || ok;
    return ok;
  };
}

export const unauthenticatedStatus = (): Partial<grpc.StatusObject> => ({
  code: grpc.status.UNAUTHENTICATED,
  details: 'invalid or missing worker token',
});
