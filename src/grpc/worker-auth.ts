import * as grpc from '@grpc/grpc-js';
import { timingSafeEqual, createHash } from 'node:crypto';
import { WORKER_TOKEN_HEADER } from '../platform/grpc-contract.ts';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Constant-time check of `authorization: Bearer <WORKER_TOKEN>`. */
export function workerTokenChecker(token: string): (md: grpc.Metadata) => boolean {
  const expected = digest(`Bearer ${token}`);
  return (md) => {
    const presented = md.get(WORKER_TOKEN_HEADER)[0];
    return typeof presented === 'string' && timingSafeEqual(digest(presented), expected);
  };
}

export const unauthenticatedStatus = (): Partial<grpc.StatusObject> => ({
  code: grpc.status.UNAUTHENTICATED,
  details: 'invalid or missing worker token',
});
