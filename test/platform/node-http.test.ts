import { describe, it, expect, afterEach } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bufferedResponse } from '../../src/domain/http/buffered-response.ts';
import { sendWebResponse, toWebRequest } from '../../src/platform/node-http.ts';

let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

async function serve(handler: (req: Request) => Promise<Response>): Promise<string> {
  server = createServer((req, res) => {
    void handler(toWebRequest(req, res, `http://${req.headers.host}`)).then((r) => sendWebResponse(res, r));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('Node adapter: requests', () => {
  it('are Requests with method, url, headers and a body read once', async () => {
    let seen: Record<string, unknown> = {};
    const url = await serve(async (req) => {
      seen = {
        isRequest: req instanceof Request,
        method: req.method,
        url: req.url,
        header: req.headers.get('X-Custom'),
        missing: req.headers.get('x-none'),
        has: req.headers.has('x-custom'),
        json: await req.json(),
        used: req.bodyUsed,
      };
      await expect(req.text()).rejects.toThrow(/already been read/);
      return Response.json({ ok: true });
    });
    await fetch(`${url}/v1/x?q=1`, { method: 'POST', headers: { 'x-custom': 'v', 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(seen).toEqual({ isRequest: true, method: 'POST', url: `${url}/v1/x?q=1`, header: 'v', missing: null, has: true, json: { a: 1 }, used: true });
  });

  it('become real Requests for members they do not serve (streamed body, clone, iteration)', async () => {
    let seen: Record<string, unknown> = {};
    const url = await serve(async (req) => {
      const names = [...req.headers.keys()];
      const copy = req.clone();
      seen = { names: names.includes('x-a'), text: await new Response(req.body).text(), copy: await copy.text(), mode: req.mode };
      return new Response('ok');
    });
    await fetch(url, { method: 'PUT', headers: { 'x-a': '1' }, body: 'streamed body' });
    expect(seen).toEqual({ names: true, text: 'streamed body', copy: 'streamed body', mode: 'cors' });
  });

  it('abort their signal when the caller goes away before the answer', async () => {
    let received!: () => void;
    const arrived = new Promise<void>((r) => (received = r));
    let aborted!: Promise<boolean>;
    const url = await serve((req) => {
      aborted = new Promise((resolve) => req.signal.addEventListener('abort', () => resolve(true)));
      received();
      return new Promise(() => {}); // never answers
    });
    const ac = new AbortController();
    const pending = fetch(url, { signal: ac.signal }).catch(() => 'aborted');
    await arrived;
    ac.abort();
    expect(await aborted).toBe(true);
    expect(await pending).toBe('aborted');
  });
});

describe('Node adapter: responses', () => {
  it('write buffered answers whole, with content-length, and they still read as Responses', async () => {
    let asResponse: Record<string, unknown> = {};
    const url = await serve(async () => {
      const r = bufferedResponse('{"x":1}', 201, { 'content-type': 'application/json', 'x-multi': ['a', 'b'] });
      asResponse = { isResponse: r instanceof Response, status: r.status, ok: r.ok, type: r.headers.get('content-type') };
      return bufferedResponse('{"x":1}', 201, { 'content-type': 'application/json', 'x-multi': ['a', 'b'] });
    });
    const res = await fetch(url);
    expect(res.status).toBe(201);
    expect(res.headers.get('content-length')).toBe('7');
    expect(res.headers.get('x-multi')).toBe('a, b');
    expect(await res.text()).toBe('{"x":1}');
    expect(asResponse).toEqual({ isResponse: true, status: 201, ok: true, type: 'application/json' });
  });

  it('stream ordinary Responses chunk by chunk', async () => {
    const url = await serve(async () => {
      const enc = new TextEncoder();
      return new Response(new ReadableStream({ start(c) { c.enqueue(enc.encode('a')); c.enqueue(enc.encode('b')); c.close(); } }), { headers: { 'set-cookie': 'k=v' } });
    });
    const res = await fetch(url);
    expect(res.headers.get('set-cookie')).toBe('k=v');
    expect(await res.text()).toBe('ab');
  });
});
