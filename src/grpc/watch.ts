// WorkerSync.Watch: a worker's bidirectional stream of changes (see proto/worker_sync.proto).
import * as grpc from '@grpc/grpc-js';
import type { Logger } from '../domain/logger.ts';
import { heldFromWire, watchEventToWire, type WireWatchEvent, type WireWatchRequest } from '../domain/sync-codec.ts';
import type { WatchHub, WatchSession } from '../services/sync/watch-hub.ts';
import { unauthenticatedStatus } from './worker-auth.ts';

type WatchCall = grpc.ServerDuplexStream<WireWatchRequest, WireWatchEvent>;

export interface WatchService {
  handler: (call: WatchCall) => void;
  /** Ends every open Watch stream (the workers reconnect, to this replica when it is back or to another). */
  endAll(): void;
}

export function watchService(hub: WatchHub, authorised: (md: grpc.Metadata) => boolean, logger: Logger): WatchService {
  const calls = new Map<WatchCall, () => void>();

  const handler = (call: WatchCall) => {
    if (!authorised(call.metadata)) {
      call.emit('error', { ...unauthenticatedStatus(), metadata: new grpc.Metadata() });
      return;
    }
    call.sendMetadata(new grpc.Metadata()); // the worker learns at once that the stream is accepted
    let session: WatchSession | null = null;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      calls.delete(call);
      session?.close();
    };
    calls.set(call, finish);

    call.on('data', (req: WireWatchRequest) => {
      if (done) return;
      if (req.subscribe) {
        if (session) return; // one subscription per stream; later ones are ignored
        const sub = req.subscribe;
        session = hub.open(
          { workerId: sub.worker_id || 'unknown', sinceVersion: Number(sub.since_version), held: (sub.held ?? []).map(heldFromWire) },
          {
            send: (event) => {
              if (!done) call.write(watchEventToWire(event));
            },
            fail: () => {
              if (done) return;
              finish();
              call.emit('error', { code: grpc.status.UNAVAILABLE, details: 'watch catch-up failed', metadata: new grpc.Metadata() });
            },
          },
        );
      } else if (req.held) {
        session?.addHeld((req.held.held ?? []).map(heldFromWire));
      } else if (req.ack) {
        session?.ack(Number(req.ack.version));
      }
    });
    call.on('end', () => {
      finish();
      call.end();
    });
    call.on('cancelled', finish);
    call.on('close', finish);
    call.on('error', (err: unknown) => {
      logger.debug('watch stream error', { err: String(err) });
      finish();
    });
  };

  return {
    handler,
    endAll() {
      for (const [call, finish] of [...calls]) {
        finish();
        call.end();
      }
    },
  };
}
