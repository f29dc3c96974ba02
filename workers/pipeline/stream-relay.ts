import { toHeaders, type HeaderRecord } from '../../src/domain/http/buffered-response.ts';

export interface RelayHooks {
  /** Bytes in, bytes to pass on (null: nothing yet). */
  push(chunk: Uint8Array): Uint8Array | null;
  /** The upstream ended: anything left to send. */
  end(): Uint8Array | null;
  /** Called once: errorCode '' on a clean end. */
  complete(errorCode: string): void;
}

const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * Relays an upstream body to the caller as it arrives (pull-based: one upstream read per caller
 * read, so a slow caller slows the upstream instead of filling memory).
 */
export function relayStream(source: ReadableStream<Uint8Array>, status: number, headers: HeaderRecord, hooks: RelayHooks, aborted: () => boolean): Response {
  let done = false;
  const complete = (code: string) => {
    if (done) return;
    done = true;
    hooks.complete(code);
  };
  if (NULL_BODY.has(status)) {
    void source.cancel().catch(() => {});
    complete('');
    return new Response(null, { status, headers: toHeaders(headers) });
  }
  const reader = source.getReader();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        for (;;) {
          const { value, done: ended } = await reader.read();
          if (ended) {
            const rest = hooks.end();
            if (rest) controller.enqueue(rest);
            controller.close();
            complete('');
            return;
          }
          const out = hooks.push(value);
          if (out) {
            controller.enqueue(out);
            return;
          }
        }
      } catch (err) {
        complete(aborted() ? 'client_closed_request' : 'upstream_stream_error');
        controller.error(err);
      }
    },
    cancel(reason) {
      complete('client_closed_request');
      return reader.cancel(reason);
    },
  });
  return new Response(stream, { status, headers: toHeaders(headers) });
}
