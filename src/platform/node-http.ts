// Node http <-> web-standard Request/Response, shared by the control plane and the worker's
// Node runtime. Building a real undici Request per call costs more than the proxying itself,
// so requests are lightweight stand-ins that are Requests to every caller (same prototype,
// same members) and only materialise the real thing if a member we do not serve is used.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { bufferedParts, setBufferedResponseFactory, toHeaders, type BufferedParts } from '../domain/http/buffered-response.ts';

const DELEGATED = ['cache', 'credentials', 'destination', 'integrity', 'mode', 'redirect', 'referrer', 'referrerPolicy', 'keepalive', 'duplex'] as const;

/**
 * Request headers read straight from Node's parsed header object (already lower-cased and
 * validated by the HTTP parser); a real Headers is built only if someone changes them.
 */
class NodeHeaders {
  private real: Headers | undefined;
  constructor(private readonly req: IncomingMessage) {}
  private materialise(): Headers {
    if (!this.real) {
      const h = new Headers();
      const raw = this.req.rawHeaders;
      for (let i = 0; i < raw.length; i += 2) h.append(raw[i]!, raw[i + 1]!);
      this.real = h;
    }
    return this.real;
  }
  get(name: string): string | null {
    if (this.real) return this.real.get(name);
    const v = this.req.headers[name.toLowerCase()];
    if (v === undefined) return null;
    return Array.isArray(v) ? v.join(', ') : v;
  }
  has(name: string): boolean {
    return this.real ? this.real.has(name) : this.req.headers[name.toLowerCase()] !== undefined;
  }
  getSetCookie(): string[] {
    return this.materialise().getSetCookie();
  }
  set(name: string, value: string): void {
    this.materialise().set(name, value);
  }
  append(name: string, value: string): void {
    this.materialise().append(name, value);
  }
  delete(name: string): void {
    this.materialise().delete(name);
  }
  forEach(cb: (value: string, name: string, parent: Headers) => void, thisArg?: unknown): void {
    this.materialise().forEach(cb, thisArg);
  }
  entries() {
    return this.materialise().entries();
  }
  keys() {
    return this.materialise().keys();
  }
  values() {
    return this.materialise().values();
  }
  [Symbol.iterator]() {
    return this.materialise()[Symbol.iterator]();
  }
}
Object.setPrototypeOf(NodeHeaders.prototype, Headers.prototype);

class NodeRequest {
  private real: Request | undefined;
  private headersCache: Headers | undefined;
  private controller: AbortController | undefined;
  private consumed = false;

  constructor(private readonly req: IncomingMessage, private readonly res: ServerResponse, private readonly origin: string) {}

  get method(): string {
    return this.req.method ?? 'GET';
  }

  get url(): string {
    return this.origin + (this.req.url ?? '/');
  }

  get headers(): Headers {
    this.headersCache ??= new NodeHeaders(this.req) as unknown as Headers;
    return this.headersCache;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      const c = new AbortController();
      // The caller went away before the answer was complete: abort upstream work.
      this.res.once('close', () => {
        if (!this.res.writableFinished) c.abort();
      });
      this.controller = c;
    }
    return this.controller.signal;
  }

  get bodyUsed(): boolean {
    return this.consumed || (this.real?.bodyUsed ?? false);
  }

  get body(): ReadableStream<Uint8Array> | null {
    return this.materialise().body;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const buf = await this.readAll();
    return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
  }

  async bytes(): Promise<Uint8Array> {
    return new Uint8Array(await this.readAll());
  }

  async text(): Promise<string> {
    return (await this.readAll()).toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  formData(): Promise<FormData> {
    return this.materialise().formData();
  }

  blob(): Promise<Blob> {
    return this.materialise().blob();
  }

  clone(): Request {
    return this.materialise().clone();
  }

  private hasBody(): boolean {
    return this.method !== 'GET' && this.method !== 'HEAD';
  }

  private async readAll(): Promise<Buffer> {
    if (this.real) return Buffer.from(await this.real.arrayBuffer());
    if (this.consumed) throw new TypeError('Body is unusable: Body has already been read');
    this.consumed = true;
    if (!this.hasBody()) return Buffer.alloc(0);
    const req = this.req;
    return new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
      req.once('error', reject);
      req.once('aborted', () => reject(new Error('request aborted')));
    });
  }

  materialise(): Request {
    if (!this.real) {
      if (this.consumed) throw new TypeError('Body is unusable: Body has already been read');
      const headers = new Headers();
      const raw = this.req.rawHeaders;
      for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
      const init: RequestInit & { duplex?: 'half' } = { method: this.method, headers, signal: this.signal };
      if (this.hasBody()) {
        init.body = Readable.toWeb(this.req) as ReadableStream<Uint8Array>;
        init.duplex = 'half';
      }
      this.real = new Request(this.url, init);
    }
    return this.real;
  }
}

for (const name of DELEGATED) {
  Object.defineProperty(NodeRequest.prototype, name, {
    get(this: NodeRequest) {
      return (this.materialise() as unknown as Record<string, unknown>)[name];
    },
  });
}
Object.setPrototypeOf(NodeRequest.prototype, Request.prototype);

/** A buffered answer that becomes a real Response only if someone reads it as one. */
class NodeBufferedResponse {
  private real: Response | undefined;
  constructor(private readonly parts: BufferedParts) {}
  get status(): number {
    return this.parts.status;
  }
  get ok(): boolean {
    return this.parts.status >= 200 && this.parts.status < 300;
  }
  get bodyUsed(): boolean {
    return this.real?.bodyUsed ?? false;
  }
  materialise(): Response {
    this.real ??= new Response(this.parts.body as BodyInit, { status: this.parts.status, headers: toHeaders(this.parts.headers) });
    return this.real;
  }
}
for (const name of ['headers', 'body', 'statusText', 'type', 'url', 'redirected'] as const) {
  Object.defineProperty(NodeBufferedResponse.prototype, name, {
    get(this: NodeBufferedResponse) {
      return (this.materialise() as unknown as Record<string, unknown>)[name];
    },
  });
}
for (const name of ['text', 'json', 'arrayBuffer', 'blob', 'formData', 'clone', 'bytes'] as const) {
  Object.defineProperty(NodeBufferedResponse.prototype, name, {
    value(this: NodeBufferedResponse) {
      const real = this.materialise() as unknown as Record<string, () => unknown>;
      return real[name]!.call(real);
    },
  });
}
Object.setPrototypeOf(NodeBufferedResponse.prototype, Response.prototype);
setBufferedResponseFactory((parts) => new NodeBufferedResponse(parts) as unknown as Response);

export function toWebRequest(req: IncomingMessage, res: ServerResponse, origin: string): Request {
  return new NodeRequest(req, res, origin) as unknown as Request;
}

function nodeHeaders(response: Response): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = name === 'set-cookie' ? response.headers.getSetCookie() : value;
  });
  return headers;
}

export async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const buffered = bufferedParts(response);
  if (buffered !== undefined) {
    // The whole body is in memory: one write, with its length.
    const body = buffered.body;
    res.writeHead(buffered.status, { ...buffered.headers, 'content-length': String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength) });
    res.end(body);
    return;
  }
  res.writeHead(response.status, nodeHeaders(response));
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const onClose = () => void reader.cancel().catch(() => {});
  res.once('close', onClose);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (!res.write(value)) await new Promise<void>((resolve) => res.once('drain', resolve));
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    res.off('close', onClose);
  }
}

export const remoteAddress = (req: IncomingMessage): string | null => req.socket.remoteAddress ?? null;
