// What a worker needs from its runtime: the runtime adapters (workers/runtime) provide
// these, the rest of workers/ stays on web standards.
import type { ResolvedKey } from '../src/domain/api-key.ts';
import type { HeldResource, ResolvedResource, ResourceEvent, WatchSubscription } from '../src/domain/sync-codec.ts';
import type { ReportAck, UsageBatch } from '../src/domain/usage-record.ts';

/** Resolve calls to the control plane. Rejects with ControlPlaneUnavailable when it cannot answer. */
export interface ControlPlaneLink {
  resolveKey(keyHash: string): Promise<ResolvedKey | null>;
}

/** gRPC Resolve for every other resource (provider, config, guardrail, policy_set, ...). */
export interface ResourceLink {
  /** null when unknown or deleted; rejects with ControlPlaneUnavailable when the control plane cannot answer. */
  resolveResource(type: string, key: string): Promise<ResolvedResource | null>;
}

/** One model of the integrated catalogue (`GET /v1/models` with the fetch-integrated-models flag). */
export interface CatalogueModel {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  [extra: string]: unknown;
}

/** The workspace's integrated model catalogue, from the control plane (wired to gRPC by the lead). */
export interface ModelCatalogue {
  listModels(workspaceId: string): Promise<CatalogueModel[]>;
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

export interface WatchHandlers {
  /** The control plane accepted the stream. */
  onOpen(): void;
  onEvent(event: ResourceEvent): void;
  /** The stream ended (error: why); the caller reconnects. */
  onClose(error?: unknown): void;
}

export interface WatchStream {
  /** More held resources, after the subscription (large caches go in chunks). */
  sendHeld(held: HeldResource[]): void;
  /** Acknowledges the highest version applied. */
  ack(version: number): void;
  end(): void;
}

/** The change stream (gRPC Watch): opened with a subscription, it carries changes as they commit. */
export interface WatchChannel {
  watch(subscription: WatchSubscription, handlers: WatchHandlers): WatchStream;
}

export interface UpstreamRequest {
  method: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** A stream is relayed as it arrives (multipart, binary and pass-through bodies). */
  body: string | Uint8Array | ReadableStream<Uint8Array> | null;
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
