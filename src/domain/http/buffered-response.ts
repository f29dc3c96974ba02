// Responses whose whole body is already in memory. Runtime adapters that can write bytes
// directly (the Node adapter) read the parts from here instead of streaming the body back,
// and may register a cheaper Response stand-in; every other runtime gets an ordinary Response.

export type HeaderRecord = Record<string, string | string[]>;

export interface BufferedParts {
  status: number;
  headers: HeaderRecord;
  body: Uint8Array | string;
}

const parts = new WeakMap<Response, BufferedParts>();
let makeResponse: (p: BufferedParts) => Response = (p) => new Response(p.body as BodyInit, { status: p.status, headers: toHeaders(p.headers) });

export function toHeaders(record: HeaderRecord): Headers {
  const h = new Headers();
  for (const name in record) {
    const v = record[name]!;
    if (Array.isArray(v)) for (const x of v) h.append(name, x);
    else h.append(name, v);
  }
  return h;
}

/** Lets a runtime adapter supply its own Response stand-in for buffered answers. */
export function setBufferedResponseFactory(factory: (p: BufferedParts) => Response): void {
  makeResponse = factory;
}

export function bufferedResponse(body: Uint8Array | string, status: number, headers: HeaderRecord): Response {
  const p = { status, headers, body };
  const response = makeResponse(p);
  parts.set(response, p);
  return response;
}

/** The in-memory parts of a response made by bufferedResponse, unless its body was already read. */
export function bufferedParts(response: Response): BufferedParts | undefined {
  return response.bodyUsed ? undefined : parts.get(response);
}
