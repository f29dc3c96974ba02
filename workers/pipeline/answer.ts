// Small helpers over an answer already built by callTarget: headers added after the fact, the
// whole body read (cache store, output guardrails), an answer rebuilt. Buffered answers are
// handled through their parts, which is what the Node adapter writes.
import { bufferedParts, bufferedResponse, toHeaders, type HeaderRecord } from '../../src/domain/http/buffered-response.ts';

export function setHeader(response: Response, name: string, value: string): void {
  const p = bufferedParts(response);
  if (p) p.headers[name] = value;
  try {
    response.headers.set(name, value);
  } catch {
    /* a runtime's stand-in with immutable headers: the parts above are what it writes */
  }
}

export function headerOf(response: Response, name: string): string | null {
  const p = bufferedParts(response);
  if (p) {
    const v = p.headers[name];
    return v === undefined ? null : Array.isArray(v) ? (v[0] ?? null) : v;
  }
  return response.headers.get(name);
}

export function headerRecord(response: Response): HeaderRecord {
  const p = bufferedParts(response);
  if (p) return { ...p.headers };
  const out: HeaderRecord = {};
  response.headers.forEach((v, k) => {
    out[k] = v;
  });
  return out;
}

const td = new TextDecoder();

/** The whole body as text (the answer is then spent: rebuild it with `rebuilt`). */
export async function wholeText(response: Response): Promise<string> {
  const p = bufferedParts(response);
  if (p) return typeof p.body === 'string' ? p.body : td.decode(p.body);
  return response.text();
}

export function rebuilt(body: string, status: number, headers: HeaderRecord): Response {
  const h = { ...headers };
  delete h['content-length'];
  return bufferedResponse(body, status, h);
}

/** Drops an answer the caller will not see (frees the upstream connection). */
export function discardAnswer(response: Response): void {
  if (bufferedParts(response)) return;
  try {
    void response.body?.cancel().catch(() => {});
  } catch {
    /* already locked or read */
  }
}

export const isEventStream = (response: Response): boolean => (headerOf(response, 'content-type') ?? '').includes('text/event-stream');

/** Wraps a body stream: `push` sees each chunk and returns what to relay, `end` what to add before closing (may be async). */
export function tapped(response: Response, push: (chunk: Uint8Array) => Uint8Array | null, end: () => Promise<Uint8Array | null> | Uint8Array | null): Response {
  const p = bufferedParts(response);
  if (p) {
    // A whole answer (a cache hit replayed as SSE): tapped in one go.
    const bytes = typeof p.body === 'string' ? new TextEncoder().encode(p.body) : p.body;
    return new Response(
      new ReadableStream<Uint8Array>({
        async start(controller) {
          const out = push(bytes);
          if (out && out.byteLength) controller.enqueue(out);
          const last = await end();
          if (last && last.byteLength) controller.enqueue(last);
          controller.close();
        },
      }),
      { status: p.status, headers: toHeaders(p.headers) },
    );
  }
  const source = response.body;
  if (!source) return response;
  const stream = source.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const out = push(chunk);
        if (out && out.byteLength) controller.enqueue(out);
      },
      async flush(controller) {
        const out = await end();
        if (out && out.byteLength) controller.enqueue(out);
      },
    }),
  );
  return new Response(stream, { status: response.status, headers: response.headers });
}

/**
 * Ends a stalled stream (issue 7 item 4): when no bytes arrive for `ms`, an SSE error event is
 * sent, the stream closes and the upstream is cancelled. No timer runs while bytes flow fast
 * enough: one timer per read, cleared when the read completes.
 */
export function withIdleTimeout(response: Response, ms: number, onTimeout: () => void): Response {
  if (bufferedParts(response)) return response; // whole already: nothing can stall
  const source = response.body;
  if (!source) return response;
  const reader = source.getReader();
  const te = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const idle = new Promise<'idle'>((resolve) => {
        timer = setTimeout(() => resolve('idle'), ms);
      });
      try {
        const r = await Promise.race([reader.read(), idle]);
        if (r === 'idle') {
          onTimeout();
          const body = { error: { message: `The provider sent nothing for ${ms}ms: the stream was ended (x-gateway-stream-idle-timeout).`, type: 'timeout_error', param: null, code: 'stream_idle_timeout' } };
          controller.enqueue(te.encode(`data: ${JSON.stringify(body)}\n\n`));
          controller.close();
          void reader.cancel('stream idle timeout').catch(() => {});
          return;
        }
        if (r.done) controller.close();
        else controller.enqueue(r.value);
      } catch (err) {
        controller.error(err);
      } finally {
        clearTimeout(timer);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return new Response(stream, { status: response.status, headers: response.headers });
}
