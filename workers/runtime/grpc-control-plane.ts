// The worker's gRPC client (ResolveKey, Report, Watch). @grpc/grpc-js runs on Node and on Deno.
import { Buffer } from 'node:buffer';
import * as grpc from '@grpc/grpc-js';
import type { ResolvedKey } from '../../src/domain/api-key.ts';
import {
  heldToWire,
  keyFromWire,
  resourceFromWire,
  watchEventFromWire,
  type HeldResource,
  type ResolvedResource,
  type WatchSubscription,
  type WireResolveKeyResponse,
  type WireResolveResponse,
  type WireWatchEvent,
  type WireWatchRequest,
} from '../../src/domain/sync-codec.ts';
import type { ReportAck, UsageBatch } from '../../src/domain/usage-record.ts';
import { workerSyncService, workerTokenMetadata } from '../../src/platform/grpc-contract.ts';
import {
  ControlPlaneUnavailable,
  type ControlPlaneLink,
  type ReportChannel,
  type ResourceLink,
  type ReportStream,
  type WatchChannel,
  type WatchHandlers,
  type WatchStream,
} from '../contracts.ts';

export interface GrpcControlPlaneOptions {
  /** host:port */
  target: string;
  workerToken: string;
  resolveTimeoutMs?: number;
  /** TLS to the control plane; absent: plaintext. */
  tls?: ControlPlaneTls | null | undefined;
}

export interface ControlPlaneTls {
  /** PEM of the CA (or self-signed certificate) to trust; default: the system's roots. */
  ca?: string | undefined;
  /** Name to check in the certificate instead of the target's host (grpc.ssl_target_name_override). */
  serverName?: string | undefined;
}

export interface LinkState {
  reachable: boolean;
  /** Epoch ms of the last change of `reachable`. */
  since: number;
  /** Epoch ms of the first answer from the control plane since start (readiness); null before. */
  firstContact: number | null;
  /** Why the last call failed (gRPC status details), for `/ready`. */
  lastError: string | null;
}

export class GrpcControlPlane implements ControlPlaneLink, ResourceLink, ReportChannel, WatchChannel {
  private readonly client: grpc.Client & Record<string, (...args: unknown[]) => unknown>;
  private readonly metadata: grpc.Metadata;
  readonly state: LinkState = { reachable: true, since: Date.now(), firstContact: null, lastError: null };

  constructor(private readonly opts: GrpcControlPlaneOptions) {
    const Service = workerSyncService();
    const target = opts.target.replace(/^https?:\/\//, '');
    const tls = opts.tls;
    const credentials = tls ? grpc.credentials.createSsl(tls.ca ? Buffer.from(tls.ca) : null) : grpc.credentials.createInsecure();
    this.client = new Service(target, credentials, {
      'grpc.keepalive_time_ms': 15_000,
      'grpc.keepalive_timeout_ms': 5_000,
      'grpc.initial_reconnect_backoff_ms': 200,
      'grpc.max_reconnect_backoff_ms': 5_000,
      ...(tls?.serverName ? { 'grpc.ssl_target_name_override': tls.serverName, 'grpc.default_authority': tls.serverName } : {}),
    }) as never;
    this.metadata = workerTokenMetadata(opts.workerToken);
  }

  private mark(reachable: boolean, error?: grpc.ServiceError): void {
    if (reachable) {
      this.state.firstContact ??= Date.now();
      this.state.lastError = null;
    } else if (error) {
      this.state.lastError = error.details || error.message;
    }
    if (this.state.reachable !== reachable) {
      this.state.reachable = reachable;
      this.state.since = Date.now();
    }
  }

  resolveKey(keyHash: string): Promise<ResolvedKey | null> {
    return this.unary('ResolveKey', { key_hash: keyHash }, (res: WireResolveKeyResponse) => keyFromWire(res));
  }

  resolveResource(type: string, key: string): Promise<ResolvedResource | null> {
    return this.unary('Resolve', { resource_type: type, resource_key: key }, (res: WireResolveResponse) => resourceFromWire(res));
  }

  private unary<W, T>(method: string, request: object, decode: (wire: W) => T): Promise<T> {
    return new Promise((resolve, reject) => {
      const deadline = Date.now() + (this.opts.resolveTimeoutMs ?? 3_000);
      this.client[method]!(request, this.metadata, { deadline }, (err: grpc.ServiceError | null, res: W) => {
        if (err) {
          if (err.code === grpc.status.UNAUTHENTICATED) {
            this.state.lastError = 'control plane refused the worker token';
            return reject(new Error('control plane refused the worker token'));
          }
          this.mark(false, err);
          return reject(new ControlPlaneUnavailable(err.details || err.message));
        }
        this.mark(true);
        resolve(decode(res));
      });
    });
  }

  open(handlers: { onAck(ack: ReportAck): void; onClose(error?: unknown): void }): ReportStream {
    const call = this.client.Report!(this.metadata) as grpc.ClientDuplexStream<UsageBatch, ReportAck>;
    let closed = false;
    const close = (error?: unknown) => {
      if (closed) return;
      closed = true;
      handlers.onClose(error);
    };
    call.on('data', (ack: ReportAck) => {
      this.mark(true);
      handlers.onAck(ack);
    });
    call.on('error', (err: grpc.ServiceError) => {
      if (err.code === grpc.status.UNAVAILABLE) this.mark(false, err);
      close(err);
    });
    call.on('end', () => close());
    return {
      write: (batch) => {
        if (!closed) call.write(batch);
      },
      end: () => {
        closed = true;
        call.end();
      },
    };
  }

  watch(sub: WatchSubscription, handlers: WatchHandlers): WatchStream {
    const call = this.client.Watch!(this.metadata) as grpc.ClientDuplexStream<WireWatchRequest, WireWatchEvent>;
    let closed = false;
    const close = (error?: unknown) => {
      if (closed) return;
      closed = true;
      handlers.onClose(error);
    };
    const write = (req: WireWatchRequest) => {
      if (!closed) call.write(req);
    };
    // The control plane sends its headers once it accepted the worker token.
    call.on('metadata', () => {
      if (closed) return;
      this.mark(true);
      handlers.onOpen();
    });
    call.on('data', (wire: WireWatchEvent) => {
      const event = watchEventFromWire(wire);
      if (event && !closed) handlers.onEvent(event);
    });
    call.on('error', (err: grpc.ServiceError) => {
      if (err.code === grpc.status.UNAVAILABLE) this.mark(false, err);
      if (err.code === grpc.status.UNAUTHENTICATED) this.state.lastError = 'control plane refused the worker token';
      close(err.code === grpc.status.UNAUTHENTICATED ? new Error('control plane refused the worker token') : err);
    });
    call.on('end', () => close());
    write({ subscribe: { worker_id: sub.workerId, since_version: sub.sinceVersion, held: sub.held.map(heldToWire) } });
    return {
      sendHeld: (held: HeldResource[]) => write({ held: { held: held.map(heldToWire) } }),
      ack: (version: number) => write({ ack: { version } }),
      end: () => {
        if (closed) return;
        closed = true;
        call.cancel();
      },
    };
  }

  close(): void {
    this.client.close();
  }
}
