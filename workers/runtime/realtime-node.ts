// The Node runtime's WebSocket tunnel for /v1/realtime: the handler authenticates and routes the
// upgrade, then the bytes flow both ways untouched over a socket opened through the same DNS
// guard as every upstream call; the provider's frames are read on the side for usage.
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import { connect as netConnect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import type { TrustedHosts } from '../../src/domain/net/custom-host.ts';
import { RealtimeUsageTap } from '../endpoints/realtime.ts';
import type { GatewayHandler } from '../handler.ts';
import { guardedLookup } from './upstream-node.ts';

async function writeResponse(socket: Duplex, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  let head = `HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ''}\r\n`;
  response.headers.forEach((v, k) => {
    if (k !== 'content-length') head += `${k}: ${v}\r\n`;
  });
  head += `content-length: ${body.length}\r\nconnection: close\r\n\r\n`;
  socket.end(Buffer.concat([Buffer.from(head), body]));
}

const HEADER_END = Buffer.from('\r\n\r\n');

export async function tunnelRealtime(req: IncomingMessage, socket: Duplex, head: Buffer, handler: GatewayHandler, trusted: TrustedHosts): Promise<void> {
  socket.on('error', () => socket.destroy());
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, { method: req.method ?? 'GET', headers });
  const routed = await handler.realtime(request);
  if (routed instanceof Response) return writeResponse(socket, routed);

  const { state } = routed;
  const url = new URL(routed.url);
  const secure = url.protocol === 'https:';
  const options = { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || (secure ? 443 : 80)), lookup: guardedLookup(trusted) as never };
  const up: Socket = secure ? tlsConnect({ ...options, servername: url.hostname }) : netConnect(options);
  const tap = new RealtimeUsageTap();
  let status = 0;
  let pending: Buffer | null = Buffer.alloc(0);
  let finished = false;
  const finish = (errorCode = '') => {
    if (finished) return;
    finished = true;
    state.markUpstreamHeaders();
    state.status = status || 502;
    if (tap.tokens) state.tokens = tap.tokens;
    if (errorCode && !state.errorCode) state.errorCode = errorCode;
    if (status && status !== 101) state.errorCode = `upstream_${status}`;
    handler.finish(state);
  };

  up.once(secure ? 'secureConnect' : 'connect', () => {
    let lines = `GET ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n`;
    for (const [k, v] of Object.entries(routed.headers)) lines += `${k}: ${v}\r\n`;
    up.write(`${lines}\r\n`);
    if (head.length) up.write(head);
    socket.pipe(up);
  });
  up.on('data', (chunk: Buffer) => {
    socket.write(chunk);
    if (pending) {
      // The provider's handshake answer: its status, then frames.
      pending = Buffer.concat([pending, chunk]);
      const end = pending.indexOf(HEADER_END);
      if (end < 0) return;
      status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(pending.subarray(0, end).toString('latin1'))?.[1] ?? 0);
      const rest = pending.subarray(end + HEADER_END.length);
      pending = null;
      if (status === 101 && rest.length) tap.push(rest);
      return;
    }
    if (status === 101) tap.push(chunk);
  });
  up.on('error', async (err) => {
    if (status === 0 && !socket.destroyed && socket.writable && pending?.length === 0) {
      state.errorCode = 'upstream_unreachable';
      finish();
      const body = JSON.stringify({ error: { message: `Could not reach ${state.provider}: ${err.message}`, type: 'upstream_error', param: null, code: 'upstream_unreachable' } });
      await writeResponse(socket, new Response(body, { status: 502, headers: { 'content-type': 'application/json', 'x-gateway-trace-id': state.traceId } }));
      return;
    }
    finish('upstream_stream_error');
    socket.destroy();
  });
  up.on('close', () => {
    finish();
    socket.end();
  });
  socket.on('close', () => {
    finish();
    up.destroy();
  });
}
