// /v1/realtime: the WebSocket upgrade is authenticated and routed like any request, tunnelled to
// the provider with the provider's auth, frames relayed both ways, usage of response.done recorded.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { WebSocket } from 'undici';
import { startStack, type Stack } from '../support/stack.ts';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** A server text frame (unmasked). */
function textFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const head = payload.length < 126 ? Buffer.from([0x81, payload.length]) : Buffer.from([0x81, 126, payload.length >> 8, payload.length & 0xff]);
  return Buffer.concat([head, payload]);
}

/** The first complete (masked) client frame in `buf`: its opcode, text and length, or null. */
function clientFrame(buf: Buffer): { opcode: number; text: string; size: number } | null {
  if (buf.length < 2) return null;
  let len = buf[1]! & 0x7f;
  let at = 2;
  if (len === 126) {
    len = buf.readUInt16BE(2);
    at = 4;
  }
  if (buf.length < at + 4 + len) return null;
  const mask = buf.subarray(at, at + 4);
  const out = Buffer.alloc(len);
  for (let i = 0; i < len; i++) out[i] = buf[at + 4 + i]! ^ mask[i & 3]!;
  return { opcode: buf[0]! & 0x0f, text: out.toString(), size: at + 4 + len };
}

interface Seen { url: string; headers: IncomingMessage['headers'] }
let upstream: Server;
let upstreamUrl: string;
const seen: Seen[] = [];
let stack: Stack;
let key: string;

beforeAll(async () => {
  upstream = createServer((_req, res) => res.writeHead(404).end());
  upstream.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    seen.push({ url: req.url!, headers: req.headers });
    if (req.headers.authorization !== 'Bearer sk-rt') {
      socket.end('HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      return;
    }
    const accept = createHash('sha1').update(`${req.headers['sec-websocket-key']}${GUID}`).digest('base64');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-accept: ${accept}\r\n\r\n`);
    socket.write(textFrame(JSON.stringify({ type: 'session.created' })));
    let buf = Buffer.alloc(0);
    socket.on('data', (c: Buffer) => {
      buf = Buffer.concat([buf, c]);
      const frame = clientFrame(buf);
      if (frame === null) return;
      buf = buf.subarray(frame.size);
      if (frame.opcode === 8) {
        socket.end(Buffer.from([0x88, 0x00])); // answer the close handshake
        return;
      }
      const text = frame.text;
      const done = JSON.stringify({ type: 'response.done', echo: text, response: { usage: { input_tokens: 12, output_tokens: 30, total_tokens: 42 } } });
      // Split inside the frame header, as TCP may.
      const out = textFrame(done);
      socket.write(out.subarray(0, 1));
      setImmediate(() => socket.write(out.subarray(1)));
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
  stack = await startStack({ workers: 1 });
  key = (await stack.createKey({ name: 'rt', workspace_id: 'ws-default', scopes: ['completions.write'] })).key;
});
afterAll(async () => {
  await stack?.close();
  upstream?.closeAllConnections();
  await new Promise<void>((r) => upstream?.close(() => r()));
});

async function rowFor(traceId: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const rows = await stack.db.orm.em.getConnection().execute('select * from request_log where trace_id = ?', [traceId]);
    if (rows.length) return rows[0];
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no request_log row for ${traceId}`);
}

const wsUrl = () => `${stack.workers[0]!.url.replace('http', 'ws')}/v1/realtime?model=gpt-4o-realtime-preview`;

describe('GET /v1/realtime (WebSocket)', () => {
  it('tunnels to the provider with its auth; frames both ways; usage recorded', async () => {
    const ws = new WebSocket(wsUrl(), {
      headers: { 'x-gateway-api-key': key, 'x-gateway-provider': 'openai', authorization: 'Bearer sk-rt', 'x-gateway-custom-host': upstreamUrl, 'openai-beta': 'realtime=v1', 'x-gateway-trace-id': 'rt-1' },
    } as never);
    const messages: string[] = [];
    await new Promise<void>((resolve, reject) => {
      ws.addEventListener('open', () => ws.send(JSON.stringify({ type: 'response.create' })));
      ws.addEventListener('message', (e) => {
        messages.push(String(e.data));
        if (messages.length === 2) ws.close();
      });
      ws.addEventListener('close', () => resolve());
      ws.addEventListener('error', (e) => reject(new Error(String((e as { message?: string }).message ?? 'ws error'))));
    });
    expect(JSON.parse(messages[0]!)).toEqual({ type: 'session.created' });
    expect(JSON.parse(messages[1]!)).toMatchObject({ type: 'response.done', echo: '{"type":"response.create"}' });
    const got = seen.at(-1)!;
    expect(got.url).toBe('/v1/realtime?model=gpt-4o-realtime-preview');
    expect(got.headers.authorization).toBe('Bearer sk-rt');
    expect(got.headers['openai-beta']).toBe('realtime=v1');
    expect(got.headers['sec-websocket-extensions']).toBeUndefined();
    expect(Object.keys(got.headers).filter((h) => h.startsWith('x-gateway'))).toEqual([]);
    const row = await rowFor('rt-1');
    expect(row).toMatchObject({ endpoint: 'realtime', provider: 'openai', model: 'gpt-4o-realtime-preview', status: 101, is_stream: true, prompt_tokens: 12, completion_tokens: 30, total_tokens: 42 });
  });

  it('refuses an unknown gateway key before opening anything upstream', async () => {
    const before = seen.length;
    const ws = new WebSocket(wsUrl(), { headers: { 'x-gateway-api-key': 'Q'.repeat(48), 'x-gateway-provider': 'openai', authorization: 'Bearer sk-rt' } } as never);
    await new Promise<void>((resolve) => {
      ws.addEventListener('error', () => resolve());
      ws.addEventListener('close', () => resolve());
    });
    expect(ws.readyState).toBe(WebSocket.CLOSED);
    expect(seen.length).toBe(before);
  });
});
