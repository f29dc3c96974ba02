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

export interface UpstreamRequest {
  method: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string | Uint8Array | null;
  signal?: AbortSignal;
}

/** A provider's answer; the body is read once, whole or as a stream. */
export interface UpstreamResponse {
  status: number;
  /** Lower-case names, as the provider sent them. */
  headers: Record<string, string | string[] | undefined>;
  bytes(): Promise<Uint8Array>;
  stream(): ReadableStream<Uint8Array>;
  /** Drops an unread body (frees the connection). */
  discard(): void;
}

/**
 * Calls a provider. The Node runtime backs it with undici's request() over kept-alive
 * connections (no fetch spec layer on the hot path); Deno with its fetch.
 */
export type UpstreamFetch = (url: string, request: UpstreamRequest) => Promise<UpstreamResponse>;

/** Hex SHA-256 of an API key; runtimes pass their fastest implementation. */
export type KeyHasher = (raw: string) => string | Promise<string>;
