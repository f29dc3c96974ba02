// What a worker needs from its runtime: the runtime adapters (workers/runtime) provide
// these, the rest of workers/ stays on web standards.
import type { ResolvedKey } from '../src/domain/api-key.ts';
import type { ReportAck, UsageBatch } from '../src/domain/usage-record.ts';

/** Resolve calls to the control plane. Rejects with ControlPlaneUnavailable when it cannot answer. */
export interface ControlPlaneLink {
  resolveKey(keyHash: string): Promise<ResolvedKey | null>;
}

export class ControlPlaneUnavailable extends Error {
  constructor(message = 'control plane unavailable') {
    super(message);
    this.name = 'ControlPlaneUnavailable';
  }
}

export interface ReportStream {
  write(batch: UsageBatch): void;
  end(): void;
}

/** The acknowledged usage stream (gRPC Report). */
export interface ReportChannel {
  open(handlers: { onAck(ack: ReportAck): void; onClose(error?: unknown): void }): ReportStream;
}

/** fetch() to providers; the Node runtime backs it with undici over kept-alive connections. */
export type UpstreamFetch = (url: string, init: RequestInit) => Promise<Response>;
