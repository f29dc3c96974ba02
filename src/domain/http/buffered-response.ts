// A Response whose whole body is already in memory. Runtime adapters that can write bytes
// directly (the Node adapter) look the bytes up here instead of reading the body back through
// a ReadableStream; every other runtime just sees an ordinary Response.

const buffered = new WeakMap<Response, Uint8Array | string>();

export function bufferedResponse(body: Uint8Array | string, init: ResponseInit): Response {
  const response = new Response(body as BodyInit, init);
  buffered.set(response, body);
  return response;
}

/** The in-memory body of a response made by bufferedResponse, unless it was already read. */
export function bufferedBody(response: Response): Uint8Array | string | undefined {
  return response.bodyUsed ? undefined : buffered.get(response);
}
