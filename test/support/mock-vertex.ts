/**
 * Mock of Google's model APIs on 127.0.0.1: the Gemini API (generativelanguage: generateContent,
 * streamGenerateContent?alt=sse, embedContent, batchEmbedContents, checked against an API key),
 * Vertex AI (publishers/google generateContent/streamGenerateContent/predict and
 * publishers/anthropic rawPredict/streamRawPredict, checked against issued bearer tokens), and
 * the OAuth token endpoint (POST /token), which verifies the service-account JWT assertion's
 * RS256 signature and claims with node:crypto before issuing a token.
 */
import { createVerify } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface GoogleScript {
  /** Text pieces (default ['Hello', ' world', '!']); streams send one event each. */
  text?: string[];
  /** A function call after the text (Gemini) / a tool_use block (Claude). */
  functionCall?: { name: string; args: Record<string, unknown>; id?: string };
  finishReason?: string;
  usage?: { prompt: number; completion: number; cached?: number; thoughts?: number };
  /** Answer this status (Google error shape, or `error` when given). */
  status?: number;
  error?: unknown;
}

export interface RecordedGoogleRequest {
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  json: Record<string, unknown> | undefined;
}

export interface TokenRequest {
  grantType: string | null;
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
}

export interface MockVertexOptions {
  /** The Gemini API key accepted in x-goog-api-key. */
  apiKey?: string;
  /** Service account whose assertions the token endpoint accepts. */
  serviceAccount?: { clientEmail: string; privateKeyId: string; publicKeyPem: string };
  /** Bearer tokens accepted without an exchange (e.g. a held access token). */
  staticTokens?: string[];
  /** expires_in of issued tokens (default 3600). */
  tokenLifetimeS?: number;
}

export interface MockVertex {
  url: string;
  /** url + '/token'. */
  tokenUrl: string;
  requests: RecordedGoogleRequest[];
  tokenRequests: TokenRequest[];
  next(script: GoogleScript): void;
  close(): Promise<void>;
}

const DEFAULT_TEXT = ['Hello', ' world', '!'];
const DEFAULT_USAGE: NonNullable<GoogleScript['usage']> = { prompt: 11, completion: 7 };

const googleError = (code: number, status: string, message: string): unknown => ({ error: { code, message, status } });

function usageMetadata(s: GoogleScript): Record<string, unknown> {
  const u = s.usage ?? DEFAULT_USAGE;
  const meta: Record<string, unknown> = { promptTokenCount: u.prompt, candidatesTokenCount: u.completion, totalTokenCount: u.prompt + u.completion + (u.thoughts ?? 0) };
  if (u.cached !== undefined) meta.cachedContentTokenCount = u.cached;
  if (u.thoughts !== undefined) meta.thoughtsTokenCount = u.thoughts;
  return meta;
}

function geminiParts(s: GoogleScript, text: string[]): Record<string, unknown>[] {
  const parts: Record<string, unknown>[] = text.filter(Boolean).map((t) => ({ text: t }));
  if (s.functionCall) parts.push({ functionCall: { name: s.functionCall.name, args: s.functionCall.args, ...(s.functionCall.id ? { id: s.functionCall.id } : {}) } });
  return parts;
}

function geminiResponse(s: GoogleScript, model: string): Record<string, unknown> {
  return {
    candidates: [{ content: { role: 'model', parts: geminiParts(s, [(s.text ?? DEFAULT_TEXT).join('')]) }, finishReason: s.finishReason ?? 'STOP', index: 0 }],
    usageMetadata: usageMetadata(s),
    modelVersion: model,
    responseId: 'resp-mock',
  };
}

function geminiStreamEvents(s: GoogleScript, model: string): Record<string, unknown>[] {
  const text = s.text ?? DEFAULT_TEXT;
  const events: Record<string, unknown>[] = text.map((t) => ({ candidates: [{ content: { role: 'model', parts: [{ text: t }] }, index: 0 }], modelVersion: model }));
  const last: Record<string, unknown> = { candidates: [{ content: { role: 'model', parts: geminiParts(s, []) }, finishReason: s.finishReason ?? 'STOP', index: 0 }], usageMetadata: usageMetadata(s), modelVersion: model };
  return [...events, last];
}

function claudeMessage(s: GoogleScript, model: string): Record<string, unknown> {
  const u = s.usage ?? DEFAULT_USAGE;
  const content: unknown[] = [{ type: 'text', text: (s.text ?? DEFAULT_TEXT).join('') }];
  if (s.functionCall) content.push({ type: 'tool_use', id: s.functionCall.id ?? 'toolu_mock', name: s.functionCall.name, input: s.functionCall.args });
  return {
    id: 'msg_vrtx_mock',
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: s.finishReason ?? (s.functionCall ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    usage: { input_tokens: u.prompt, output_tokens: u.completion, cache_read_input_tokens: u.cached ?? 0, cache_creation_input_tokens: 0 },
  };
}

function claudeStreamEvents(s: GoogleScript, model: string): Record<string, unknown>[] {
  const u = s.usage ?? DEFAULT_USAGE;
  const start = { ...claudeMessage(s, model), content: [], stop_reason: null, usage: { input_tokens: u.prompt, output_tokens: 1, cache_read_input_tokens: u.cached ?? 0, cache_creation_input_tokens: 0 } };
  const events: Record<string, unknown>[] = [{ type: 'message_start', message: start }, { type: 'ping' }, { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }];
  for (const text of s.text ?? DEFAULT_TEXT) events.push({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });
  events.push({ type: 'content_block_stop', index: 0 });
  if (s.functionCall) {
    const json = JSON.stringify(s.functionCall.args);
    const half = Math.floor(json.length / 2);
    events.push(
      { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: s.functionCall.id ?? 'toolu_mock', name: s.functionCall.name, input: {} } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: json.slice(0, half) } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: json.slice(half) } },
      { type: 'content_block_stop', index: 1 },
    );
  }
  events.push({ type: 'message_delta', delta: { stop_reason: s.finishReason ?? (s.functionCall ? 'tool_use' : 'end_turn'), stop_sequence: null }, usage: { output_tokens: u.completion } });
  events.push({ type: 'message_stop' });
  return events;
}

const vector = (text: string): number[] => [text.length / 10, 0.5];
const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;

const b64urlJson = (part: string): Record<string, unknown> => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;

export async function startMockVertex(opts: MockVertexOptions = {}): Promise<MockVertex> {
  const requests: RecordedGoogleRequest[] = [];
  const tokenRequests: TokenRequest[] = [];
  const scripts: GoogleScript[] = [];
  const issued = new Set<string>(opts.staticTokens ?? []);
  const sockets = new Set<Socket>();
  let url = '';

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const parsed = new URL(req.url ?? '/', 'http://mock.invalid');
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    const send = (status: number, payload: unknown): void => {
      const text = JSON.stringify(payload);
      res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'content-length': String(Buffer.byteLength(text)) });
      res.end(text);
    };
    const sendSse = async (events: unknown[], named: boolean): Promise<void> => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const e of events) {
        // Gemini separates events with CRLF pairs; Anthropic's SSE names each event.
        const text = named ? `event: ${(e as { type: string }).type}\ndata: ${JSON.stringify(e)}\n\n` : `data: ${JSON.stringify(e)}\r\n\r\n`;
        const bytes = Buffer.from(text);
        const cut = Math.floor(bytes.length / 2);
        res.write(bytes.subarray(0, cut));
        await new Promise((r) => setImmediate(r));
        res.write(bytes.subarray(cut));
      }
      res.end();
    };

    if (parsed.pathname === '/token' && req.method === 'POST') {
      const form = new URLSearchParams(raw);
      const assertion = form.get('assertion') ?? '';
      const [h = '', p = '', sig = ''] = assertion.split('.');
      let header: Record<string, unknown> = {};
      let claims: Record<string, unknown> = {};
      try {
        header = b64urlJson(h);
        claims = b64urlJson(p);
      } catch {
        // reported below
      }
      tokenRequests.push({ grantType: form.get('grant_type'), header, claims });
      const sa = opts.serviceAccount;
      const verified = sa !== undefined && createVerify('RSA-SHA256').update(`${h}.${p}`).verify(sa.publicKeyPem, Buffer.from(sig, 'base64url'));
      const now = Math.floor(Date.now() / 1000);
      const problems = [
        form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer' && 'grant_type',
        headers['content-type'] !== 'application/x-www-form-urlencoded' && 'content-type',
        !verified && 'signature',
        header.alg !== 'RS256' && 'alg',
        sa && header.kid !== sa.privateKeyId && 'kid',
        sa && claims.iss !== sa.clientEmail && 'iss',
        claims.aud !== `${url}/token` && 'aud',
        claims.scope !== 'https://www.googleapis.com/auth/cloud-platform' && 'scope',
        !(typeof claims.iat === 'number' && typeof claims.exp === 'number' && claims.exp - claims.iat <= 3600 && Math.abs(claims.iat - now) < 300) && 'iat/exp',
      ].filter(Boolean);
      if (problems.length > 0) {
        send(400, { error: 'invalid_grant', error_description: `Invalid JWT: ${problems.join(', ')}` });
        return;
      }
      const token = `ya29.mock-${tokenRequests.length}`;
      issued.add(token);
      send(200, { access_token: token, expires_in: opts.tokenLifetimeS ?? 3600, token_type: 'Bearer' });
      return;
    }

    let json: Record<string, unknown> | undefined;
    try {
      json = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      json = undefined;
    }
    requests.push({ method: req.method ?? 'GET', path: parsed.pathname, query: parsed.search, headers, json });
    const body = json ?? {};

    const gemini = /^\/v1beta\/models\/([^/:]+):(\w+)$/.exec(parsed.pathname);
    const vertex = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/([^/]+)\/models\/([^/:]+):(\w+)$/.exec(parsed.pathname);
    if (gemini) {
      if (headers['x-goog-api-key'] !== opts.apiKey) {
        send(400, googleError(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.'));
        return;
      }
    } else if (vertex) {
      const token = /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
      if (!token || !issued.has(token)) {
        send(401, googleError(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials. Expected OAuth 2 access token.'));
        return;
      }
    } else {
      send(404, googleError(404, 'NOT_FOUND', `Unknown path ${parsed.pathname}`));
      return;
    }
    const script = scripts.shift() ?? {};
    if (script.status !== undefined && script.status >= 400) {
      send(script.status, script.error ?? googleError(script.status, script.status === 429 ? 'RESOURCE_EXHAUSTED' : 'INVALID_ARGUMENT', `Mock error (HTTP ${script.status})`));
      return;
    }
    const model = decodeURIComponent((gemini ? gemini[1] : vertex![4])!);
    const method = (gemini ? gemini[2] : vertex![5])!;
    const publisher = gemini ? 'google' : vertex![3];

    if (publisher === 'anthropic') {
      if (body.anthropic_version !== 'vertex-2023-10-16' || 'model' in body) {
        send(400, { type: 'error', error: { type: 'invalid_request_error', message: 'anthropic_version: vertex-2023-10-16 is required and model must not be in the body' } });
        return;
      }
      if (method === 'rawPredict') return send(200, claudeMessage(script, model));
      if (method === 'streamRawPredict') return sendSse(claudeStreamEvents(script, model), true);
    } else if (method === 'generateContent') {
      return send(200, geminiResponse(script, model));
    } else if (method === 'streamGenerateContent') {
      if (parsed.searchParams.get('alt') !== 'sse') {
        send(400, googleError(400, 'INVALID_ARGUMENT', 'mock serves streams as SSE only (alt=sse)'));
        return;
      }
      return sendSse(geminiStreamEvents(script, model), false);
    } else if (method === 'embedContent') {
      const text = String(((body.content as { parts: { text: string }[] }).parts[0] ?? { text: '' }).text);
      return send(200, { embedding: { values: vector(text) } });
    } else if (method === 'batchEmbedContents') {
      const list = (body.requests as { content: { parts: { text: string }[] } }[]) ?? [];
      return send(200, { embeddings: list.map((r) => ({ values: vector(r.content.parts[0]?.text ?? '') })) });
    } else if (method === 'predict') {
      const instances = (body.instances as { content: string }[]) ?? [];
      return send(200, { predictions: instances.map((i) => ({ embeddings: { values: vector(i.content), statistics: { token_count: words(i.content), truncated: false } } })) });
    }
    send(404, googleError(404, 'NOT_FOUND', `Unknown method ${method}`));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify(googleError(500, 'INTERNAL', `mock crashed: ${String(err)}`)));
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    tokenUrl: `${url}/token`,
    requests,
    tokenRequests,
    next: (script) => void scripts.push(script),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
