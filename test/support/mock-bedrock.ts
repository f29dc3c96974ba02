/**
 * Mock of the Bedrock runtime HTTP API on 127.0.0.1: Converse, ConverseStream, InvokeModel and
 * InvokeModelWithResponseStream (Claude messages, Titan and Cohere embeddings).
 *
 * It checks every request's SigV4 signature with its own implementation (node:crypto) and
 * answers 403 like AWS when it does not match; streams are written in AWS's binary
 * event-stream framing, encoded here independently of the adapter's decoder.
 */
import { createHash, createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface BedrockScript {
  /** Text deltas (default ['Hello', ' world', '!']). */
  text?: string[];
  /** A tool call after the text; its input JSON is streamed in `inputChunks` (default: whole). */
  toolUse?: { toolUseId: string; name: string; input: Record<string, unknown>; inputChunks?: string[] };
  stopReason?: string;
  usage?: { inputTokens: number; outputTokens: number; cacheReadInputTokens?: number; cacheWriteInputTokens?: number };
  /** Answer this status with `error` (default `{message: ...}`) instead. */
  status?: number;
  error?: unknown;
  /** Streams: an exception frame after the text instead of the end of the message. */
  exception?: { type: string; message: string };
  /** Streams: corrupt the CRC of the message at this index. */
  corruptFrame?: number;
}

export interface RecordedBedrockRequest {
  method: string;
  /** The raw path as sent (model ids stay percent-encoded). */
  rawPath: string;
  modelId: string;
  action: string;
  headers: Record<string, string>;
  body: string;
  json: Record<string, unknown> | undefined;
  /** The signature's scope, as verified. */
  credentialScope: string;
}

export interface MockBedrock {
  url: string;
  requests: RecordedBedrockRequest[];
  /** Queue the next answer (FIFO); without one, the default script answers. */
  next(script: BedrockScript): void;
  close(): Promise<void>;
}

export interface MockBedrockOptions {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  sessionToken?: string;
}

// --- event-stream encoding (own CRC-32, bitwise) ---------------------------------------

function crc32(bytes: Uint8Array): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

export function eventFrame(headers: Record<string, string>, payload: Buffer, corrupt = false): Buffer {
  const headerParts: Buffer[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const n = Buffer.from(name);
    const v = Buffer.from(value);
    const len = Buffer.alloc(2);
    len.writeUInt16BE(v.length);
    headerParts.push(Buffer.from([n.length]), n, Buffer.from([7]), len, v);
  }
  const headerBytes = Buffer.concat(headerParts);
  const total = 12 + headerBytes.length + payload.length + 4;
  const prelude = Buffer.alloc(12);
  prelude.writeUInt32BE(total, 0);
  prelude.writeUInt32BE(headerBytes.length, 4);
  prelude.writeUInt32BE(crc32(prelude.subarray(0, 8)), 8);
  const body = Buffer.concat([prelude, headerBytes, payload]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE((crc32(body) ^ (corrupt ? 1 : 0)) >>> 0);
  return Buffer.concat([body, crc]);
}

const event = (type: string, payload: unknown): Buffer =>
  eventFrame({ ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' }, Buffer.from(JSON.stringify(payload)));

const exceptionFrame = (type: string, message: string): Buffer =>
  eventFrame({ ':exception-type': type, ':content-type': 'application/json', ':message-type': 'exception' }, Buffer.from(JSON.stringify({ message })));

// --- SigV4 verification -----------------------------------------------------------------

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data).digest();

/** RFC 3986 encoding as SigV4 wants it (everything but unreserved characters). */
const uriEncode = (s: string): string => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function verifySignature(req: { method: string; rawUrl: string; headers: Record<string, string>; body: string }, opts: MockBedrockOptions): string {
  const auth = req.headers.authorization ?? '';
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/([^,]+), SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(auth);
  if (!m) throw new Error('missing or malformed SigV4 authorization');
  const [, keyId, scope, signedHeaders, signature] = m as unknown as [string, string, string, string, string];
  if (keyId !== opts.accessKeyId) throw new Error(`unknown access key ${keyId}`);
  const [date, region, service, terminator] = scope.split('/');
  if (region !== opts.region || service !== 'bedrock' || terminator !== 'aws4_request') throw new Error(`bad credential scope ${scope}`);
  const amzDate = req.headers['x-amz-date'] ?? '';
  if (!amzDate.startsWith(date ?? '-')) throw new Error('x-amz-date does not match the scope');
  if (opts.sessionToken !== undefined && req.headers['x-amz-security-token'] !== opts.sessionToken) throw new Error('missing session token');
  const names = signedHeaders.split(';');
  if (!names.includes('host') || !names.includes('x-amz-date')) throw new Error('host and x-amz-date must be signed');
  if (opts.sessionToken !== undefined && !names.includes('x-amz-security-token')) throw new Error('the session token must be signed');
  const url = new URL(req.rawUrl, 'http://mock.invalid');
  // Non-S3 services: each path segment (already encoded once on the wire) is encoded again.
  const canonicalUri = url.pathname.split('/').map(uriEncode).join('/');
  const canonicalQuery = [...url.searchParams]
    .map(([k, v]) => [uriEncode(k), uriEncode(v)])
    .sort(([a, b], [c, d]) => (a! < c! ? -1 : a! > c! ? 1 : b! < d! ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalHeaders = names.map((n) => `${n}:${(req.headers[n] ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  const canonicalRequest = [req.method, canonicalUri, canonicalQuery, canonicalHeaders, signedHeaders, sha256(req.body)].join('\n');
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const kSigning = hmac(hmac(hmac(hmac(`AWS4${opts.secretAccessKey}`, date!), region!), service!), 'aws4_request');
  const expected = createHmac('sha256', kSigning).update(stringToSign).digest('hex');
  if (expected !== signature) throw new Error('The request signature we calculated does not match the signature you provided.');
  return scope;
}

// --- answers ----------------------------------------------------------------------------

const DEFAULT_TEXT = ['Hello', ' world', '!'];
const DEFAULT_USAGE = { inputTokens: 11, outputTokens: 7 };

function converseJson(s: BedrockScript): unknown {
  const content: unknown[] = [];
  const text = (s.text ?? DEFAULT_TEXT).join('');
  if (text) content.push({ text });
  if (s.toolUse) content.push({ toolUse: { toolUseId: s.toolUse.toolUseId, name: s.toolUse.name, input: s.toolUse.input } });
  const usage = s.usage ?? DEFAULT_USAGE;
  return {
    output: { message: { role: 'assistant', content } },
    stopReason: s.stopReason ?? (s.toolUse ? 'tool_use' : 'end_turn'),
    usage: { ...usage, totalTokens: usage.inputTokens + usage.outputTokens },
    metrics: { latencyMs: 12 },
  };
}

function converseFrames(s: BedrockScript): Buffer[] {
  const frames: Buffer[] = [event('messageStart', { role: 'assistant' })];
  const text = s.text ?? DEFAULT_TEXT;
  let block = 0;
  if (text.length > 0) {
    for (const t of text) frames.push(event('contentBlockDelta', { contentBlockIndex: block, delta: { text: t }, p: 'abc' }));
    frames.push(event('contentBlockStop', { contentBlockIndex: block }));
    block++;
  }
  if (s.exception) return [...frames, exceptionFrame(s.exception.type, s.exception.message)];
  if (s.toolUse) {
    frames.push(event('contentBlockStart', { contentBlockIndex: block, start: { toolUse: { toolUseId: s.toolUse.toolUseId, name: s.toolUse.name } } }));
    for (const input of s.toolUse.inputChunks ?? [JSON.stringify(s.toolUse.input)]) {
      frames.push(event('contentBlockDelta', { contentBlockIndex: block, delta: { toolUse: { input } } }));
    }
    frames.push(event('contentBlockStop', { contentBlockIndex: block }));
  }
  const usage = s.usage ?? DEFAULT_USAGE;
  frames.push(event('messageStop', { stopReason: s.stopReason ?? (s.toolUse ? 'tool_use' : 'end_turn') }));
  frames.push(event('metadata', { usage: { ...usage, totalTokens: usage.inputTokens + usage.outputTokens }, metrics: { latencyMs: 12 } }));
  return frames;
}

function claudeMessage(s: BedrockScript, model: string): Record<string, unknown> {
  const usage = s.usage ?? DEFAULT_USAGE;
  return {
    id: 'msg_bdrk_mock',
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text: (s.text ?? DEFAULT_TEXT).join('') }],
    stop_reason: s.stopReason ?? 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens },
  };
}

function claudeFrames(s: BedrockScript, model: string): Buffer[] {
  const usage = s.usage ?? DEFAULT_USAGE;
  const events: Record<string, unknown>[] = [
    { type: 'message_start', message: { ...claudeMessage(s, model), content: [], stop_reason: null, usage: { input_tokens: usage.inputTokens, output_tokens: 1 } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    ...(s.text ?? DEFAULT_TEXT).map((text) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })),
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: s.stopReason ?? 'end_turn', stop_sequence: null }, usage: { output_tokens: usage.outputTokens } },
    {
      type: 'message_stop',
      'amazon-bedrock-invocationMetrics': { inputTokenCount: usage.inputTokens, outputTokenCount: usage.outputTokens, invocationLatency: 20, firstByteLatency: 5 },
    },
  ];
  const frames = events.map((e) => event('chunk', { bytes: Buffer.from(JSON.stringify(e)).toString('base64') }));
  if (s.exception) return [...frames.slice(0, 3), exceptionFrame(s.exception.type, s.exception.message)];
  return frames;
}

function embedJson(modelId: string, body: Record<string, unknown>): unknown {
  const vector = (text: string): number[] => [text.length / 10, 0.25, -0.5];
  if (modelId.includes('titan-embed')) {
    const text = String(body.inputText ?? '');
    return { embedding: vector(text), inputTextTokenCount: text.split(/\s+/).filter(Boolean).length };
  }
  const texts = (body.texts as string[]) ?? [];
  return { id: 'emb-mock', response_type: 'embeddings_floats', texts, embeddings: texts.map(vector) };
}

// --- server -----------------------------------------------------------------------------

export async function startMockBedrock(opts: MockBedrockOptions): Promise<MockBedrock> {
  const requests: RecordedBedrockRequest[] = [];
  const scripts: BedrockScript[] = [];
  const sockets = new Set<Socket>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    const rawUrl = req.url ?? '/';
    const route = /^\/model\/([^/?]+)\/(converse|converse-stream|invoke|invoke-with-response-stream)$/.exec(rawUrl);
    const send = (status: number, payload: unknown, extra: Record<string, string> = {}): void => {
      const text = JSON.stringify(payload);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...extra });
      res.end(text);
    };
    let scope: string;
    try {
      scope = verifySignature({ method: req.method ?? 'GET', rawUrl, headers, body }, opts);
    } catch (err) {
      send(403, { message: (err as Error).message }, { 'x-amzn-errortype': 'InvalidSignatureException' });
      return;
    }
    if (!route || req.method !== 'POST') {
      send(404, { message: `Unknown operation ${req.method} ${rawUrl}` }, { 'x-amzn-errortype': 'UnknownOperationException' });
      return;
    }
    const modelId = decodeURIComponent(route[1]!);
    const action = route[2]!;
    let json: Record<string, unknown> | undefined;
    try {
      json = JSON.parse(body) as Record<string, unknown>;
    } catch {
      json = undefined;
    }
    requests.push({ method: req.method, rawPath: rawUrl, modelId, action, headers, body, json, credentialScope: scope });
    const script = scripts.shift() ?? {};
    if (script.status !== undefined && script.status >= 400) {
      send(script.status, script.error ?? { message: `Mock Bedrock error (HTTP ${script.status})` }, { 'x-amzn-errortype': 'ValidationException' });
      return;
    }
    const isClaude = modelId.includes('anthropic.claude');
    if (action === 'converse') return send(200, converseJson(script));
    if (action === 'invoke') return send(200, isClaude ? claudeMessage(script, modelId) : embedJson(modelId, json ?? {}));
    if (headers.accept !== 'application/vnd.amazon.eventstream') {
      send(400, { message: `streams need accept: application/vnd.amazon.eventstream, got ${headers.accept}` });
      return;
    }
    const frames = action === 'converse-stream' ? converseFrames(script) : claudeFrames(script, modelId);
    if (script.corruptFrame !== undefined) {
      const f = frames[script.corruptFrame]!;
      f.writeUInt32BE((f.readUInt32BE(f.length - 4) ^ 1) >>> 0, f.length - 4);
    }
    res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-bedrock-content-type': 'application/json' });
    // Frames are written split in two, so readers see messages cut at arbitrary points.
    for (const f of frames) {
      const cut = Math.max(1, Math.floor(f.length / 3));
      res.write(f.subarray(0, cut));
      await new Promise((r) => setImmediate(r));
      res.write(f.subarray(cut));
    }
    res.end();
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: `mock crashed: ${String(err)}` }));
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    next: (script) => void scripts.push(script),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
