import { AppError } from '../../src/domain/errors.ts';
import type { CallContext } from '../providers/contract.ts';
import type { RequestState } from '../pipeline/request-state.ts';
import type { Target } from '../pipeline/resolve-target.ts';
import { tokensFromUsage, type Tokens } from '../pipeline/tokens.ts';

// Realtime (spec: Realtime area; reference gateway: WebSocket proxying on /v1/realtime). The
// worker authenticates and routes the upgrade like any request, then the runtime tunnels the
// WebSocket bytes both ways; the server's frames are read on the side for usage.

/** Where and how to open the provider's WebSocket. */
export interface RealtimeUpstream {
  /** http(s) URL of the upgrade request (ws/wss map to these). */
  url: string;
  /** Headers for the upgrade request: the caller's WebSocket handshake headers plus the provider's auth. */
  headers: Record<string, string>;
  state: RequestState;
}

// The handshake headers a WebSocket client sends that the provider must see. Extensions are not
// passed: without permessage-deflate the server's frames can be read for usage.
const HANDSHAKE = ['sec-websocket-key', 'sec-websocket-version', 'sec-websocket-protocol', 'openai-beta', 'user-agent', 'origin'];

export async function realtimeUpstream(target: Target, request: Request, query: string, state: RequestState, upstream: CallContext['upstream']): Promise<RealtimeUpstream> {
  if ((request.headers.get('upgrade') ?? '').toLowerCase() !== 'websocket') {
    throw new AppError(426, 'invalid_request_error', 'upgrade_required', 'GET /v1/realtime is a WebSocket endpoint: send Upgrade: websocket.');
  }
  const model = new URLSearchParams(query).get('model') ?? '';
  state.model = model;
  state.isStream = true;
  const provider = target.provider;
  const ctx: CallContext = { provider: provider.name, credentials: target.credentials, ...(target.customHost ? { customHost: target.customHost } : {}), model, stream: true, upstream, now: Date.now };
  const path = `realtime${query}`;
  const url = provider.passThroughUrl ? provider.passThroughUrl(path, ctx) : `${target.customHost ?? provider.baseUrl(ctx)}/${path}`;
  const headers: Record<string, string> = { upgrade: 'websocket', connection: 'Upgrade' };
  for (const name of HANDSHAKE) {
    const v = request.headers.get(name);
    if (v !== null) headers[name] = v;
  }
  for (const name of target.forwardHeaders) {
    const v = request.headers.get(name);
    if (v !== null) headers[name.toLowerCase()] = v;
  }
  Object.assign(headers, await provider.authHeaders(ctx));
  return { url: url.replace(/^ws(s?):/, 'http$1:'), headers, state };
}

const MAX_MESSAGE = 1024 * 1024;

/**
 * Reads a server's WebSocket frames (unmasked, RFC 6455) as they pass and adds up the usage of
 * every `response.done` event (OpenAI Realtime). Bytes may split anywhere.
 */
export class RealtimeUsageTap {
  tokens: Tokens | null = null;
  private buf = new Uint8Array(0);
  private message: Uint8Array[] = [];
  private messageSize = 0;
  private skipping = false;
  private readonly decoder = new TextDecoder();

  push(chunk: Uint8Array): void {
    const joined = new Uint8Array(this.buf.length + chunk.length);
    joined.set(this.buf);
    joined.set(chunk, this.buf.length);
    let at = 0;
    for (;;) {
      if (joined.length - at < 2) break;
      const b0 = joined[at]!;
      const b1 = joined[at + 1]!;
      let len = b1 & 0x7f;
      let head = 2;
      if (len === 126) {
        if (joined.length - at < 4) break;
        len = (joined[at + 2]! << 8) | joined[at + 3]!;
        head = 4;
      } else if (len === 127) {
        if (joined.length - at < 10) break;
        len = Number(new DataView(joined.buffer, joined.byteOffset + at + 2, 8).getBigUint64(0));
        head = 10;
      }
      if (b1 & 0x80) head += 4; // masked (a server should not, but tolerate it)
      if (joined.length - at < head + len) break;
      const payload = joined.subarray(at + head, at + head + len);
      if (b1 & 0x80) {
        const mask = joined.subarray(at + head - 4, at + head);
        for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i & 3]!;
      }
      this.frame(b0 & 0x80, b0 & 0x0f, payload);
      at += head + len;
    }
    this.buf = joined.slice(at);
  }

  private frame(fin: number, opcode: number, payload: Uint8Array): void {
    if (opcode === 1) {
      this.message = [];
      this.messageSize = 0;
      this.skipping = false;
    } else if (opcode !== 0) return; // binary and control frames carry no usage
    if (!this.skipping) {
      this.messageSize += payload.length;
      if (this.messageSize > MAX_MESSAGE) {
        this.skipping = true;
        this.message = [];
      } else this.message.push(payload.slice());
    }
    if (!fin || this.skipping) return;
    const text = this.message.map((p) => this.decoder.decode(p, { stream: true })).join('') + this.decoder.decode();
    this.message = [];
    if (!text.includes('"response.done"')) return;
    try {
      const event = JSON.parse(text) as { type?: string; response?: { usage?: unknown } };
      if (event.type !== 'response.done') return;
      const t = tokensFromUsage(event.response?.usage);
      if (!t) return;
      const prev = this.tokens ?? { prompt: 0, completion: 0, total: 0 };
      this.tokens = { prompt: prev.prompt + t.prompt, completion: prev.completion + t.completion, total: prev.total + t.total };
    } catch {
      /* not JSON: no usage */
    }
  }
}
