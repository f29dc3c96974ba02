/**
 * In-process mock of an upstream LLM provider (OpenAI's HTTP API for now).
 *
 * A `node:http` server on 127.0.0.1 with an ephemeral port. Behaviour is
 * programmed per test with `program(rule)`; everything received is recorded.
 * Routes are a table of `"METHOD /path"` -> handler, so other providers
 * (Anthropic, Gemini, ...) can be added later as more handlers, either here or
 * through `startMockProvider({ routes })`.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Pathname only (no query string). */
  path: string;
  /** Lower-cased header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The query string, with its leading `?` ('' when none). */
  search: string;
  /** Raw request body. */
  body: string;
  /** The body's exact bytes (for binary and multipart uploads). */
  raw: Buffer;
  /** Parsed body when the content-type is JSON and the body parses. */
  json?: unknown;
  /** Date.now() when the full body had arrived. */
  receivedAt: number;
}

export interface MockRule {
  /** Match; default POST. Case-insensitive. */
  method?: string;
  /** Match on the exact pathname; default /v1/chat/completions. */
  path?: string;
  /** Default 200. >= 400 without `body` answers an OpenAI-style error body. */
  status?: number;
  /** Extra response headers (e.g. retry-after). */
  headers?: Record<string, string>;
  /** JSON body to answer instead of the default (never streamed). */
  body?: unknown;
  /** Wait this long before sending headers. */
  delayMs?: number;
  /** Accept the request and never answer (until close()). */
  hang?: boolean;
  /** Stream content deltas (default ['Hello', ' world', '!']); joined for non-stream answers. */
  chunks?: string[];
  /** Gap between stream chunks. */
  chunkDelayMs?: number;
  /**
   * Streams: after the role chunk, send this many content chunks then stall
   * forever (until the client goes away or close()): no finish chunk, no
   * [DONE]. If it is >= chunks.length, every chunk is sent before the stall.
   * A non-stream request matched by such a rule hangs like `hang: true`.
   */
  hangAfterChunks?: number;
  /** Tokens to report (default 11 / 7). */
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** Keep the rule after use (same as `times: Infinity`). */
  persist?: boolean;
  /** How many requests this rule answers before it is dropped (default 1). */
  times?: number;
}

export interface MockProvider {
  /** e.g. http://127.0.0.1:40123 (no trailing slash). */
  url: string;
  /** url + '/v1'. */
  baseUrl: string;
  /** Everything received, in order. */
  requests: RecordedRequest[];
  /** Queue a behaviour; rules are consumed FIFO among those matching (method, path). */
  program(rule: MockRule): void;
  /** Clear rules and recorded requests. */
  reset(): void;
  /** Resolves once `n` requests have been recorded (default timeout 5000 ms). */
  waitForRequests(n: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  /** Closes the server and destroys open sockets, including hung ones. */
  close(): Promise<void>;
}

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  request: RecordedRequest;
  /** The programmed rule that matched, if any. */
  rule: MockRule | undefined;
  /** Monotonic per-mock counter, for ids. */
  seq: number;
  /** Resolves true after `ms`, or false early if the mock closed. */
  sleep(ms: number): Promise<boolean>;
  /** True once the mock is closing or the client disconnected. */
  gone(): boolean;
  /** Resolves when the mock closes or the client disconnects. */
  untilGone(): Promise<void>;
  sendJson(status: number, body: unknown, headers?: Record<string, string>): void;
  sendError(status: number, message?: string, headers?: Record<string, string>): void;
}

export type RouteHandler = (ctx: RouteContext) => void | Promise<void>;

export interface MockProviderOptions {
  /** Extra/overriding routes, keyed "METHOD /path" (e.g. "POST /v1/messages"). */
  routes?: Record<string, RouteHandler>;
}

const DEFAULT_METHOD = 'POST';
const DEFAULT_PATH = '/v1/chat/completions';
const DEFAULT_CHUNKS = ['Hello', ' world', '!'];
const DEFAULT_USAGE = { prompt_tokens: 11, completion_tokens: 7 };
const DEFAULT_MODEL = 'gpt-4o-mini';

// ---------------------------------------------------------------------------
// OpenAI shapes

export function openAIError(status: number, message?: string): {
  error: { message: string; type: string; param: null; code: string | null };
} {
  let type = 'invalid_request_error';
  let code: string | null = null;
  let msg = message ?? `Mock provider error (HTTP ${status})`;
  if (status === 401) {
    code = 'invalid_api_key';
    msg = message ?? 'Incorrect API key provided.';
  } else if (status === 404) {
    code = 'not_found';
    msg = message ?? 'Not found.';
  } else if (status === 429) {
    type = 'requests';
    code = 'rate_limit_exceeded';
    msg = message ?? 'Rate limit reached for requests.';
  } else if (status >= 500) {
    type = 'server_error';
    msg = message ?? 'The server had an error while processing your request.';
  }
  return { error: { message: msg, type, param: null, code } };
}

function usageOf(rule: MockRule | undefined): {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
} {
  const u = rule?.usage ?? DEFAULT_USAGE;
  return {
    prompt_tokens: u.prompt_tokens,
    completion_tokens: u.completion_tokens,
    total_tokens: u.prompt_tokens + u.completion_tokens,
  };
}

function jsonObject(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

const chatCompletions: RouteHandler = async (ctx) => {
  const { rule, res } = ctx;
  const reqBody = jsonObject(ctx.request.json);
  const model = typeof reqBody.model === 'string' ? reqBody.model : DEFAULT_MODEL;
  const stream = reqBody.stream === true;
  const includeUsage = stream && jsonObject(reqBody.stream_options).include_usage === true;
  const chunks = rule?.chunks ?? DEFAULT_CHUNKS;
  const id = `chatcmpl-mock-${ctx.seq}`;
  const created = Math.floor(Date.now() / 1000);
  const status = rule?.status ?? 200;
  const extraHeaders = rule?.headers ?? {};

  if (!stream) {
    if (rule?.hangAfterChunks !== undefined) return; // cannot produce a partial JSON body: stall
    ctx.sendJson(
      status,
      {
        id,
        object: 'chat.completion',
        created,
        model,
        system_fingerprint: 'fp_mock',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: chunks.join(''), refusal: null },
            logprobs: null,
            finish_reason: 'stop',
          },
        ],
        usage: usageOf(rule),
      },
      extraHeaders,
    );
    return;
  }

  res.writeHead(status, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...extraHeaders,
  });
  res.flushHeaders();

  const send = (choices: unknown[], extra: Record<string, unknown> = {}): void => {
    const chunk: Record<string, unknown> = {
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      system_fingerprint: 'fp_mock',
      choices,
      ...extra,
    };
    if (includeUsage && !('usage' in chunk)) chunk.usage = null;
    res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  };
  const choice = (delta: Record<string, unknown>, finish: string | null): unknown => ({
    index: 0,
    delta,
    logprobs: null,
    finish_reason: finish,
  });

  send([choice({ role: 'assistant', content: '' }, null)]);
  const gap = rule?.chunkDelayMs ?? 0;
  const limit = rule?.hangAfterChunks;
  for (let i = 0; i < chunks.length; i++) {
    if (limit !== undefined && i >= limit) break;
    if (gap > 0 && !(await ctx.sleep(gap))) return;
    if (ctx.gone()) return;
    send([choice({ content: chunks[i] }, null)]);
  }
  if (limit !== undefined) {
    // Stall: no finish chunk, no [DONE], connection left open.
    await ctx.untilGone();
    return;
  }
  if (gap > 0 && !(await ctx.sleep(gap))) return;
  if (ctx.gone()) return;
  send([choice({}, 'stop')]);
  if (includeUsage) send([], { usage: usageOf(rule) });
  res.end('data: [DONE]\n\n');
};

const listModels: RouteHandler = (ctx) => {
  ctx.sendJson(
    ctx.rule?.status ?? 200,
    {
      object: 'list',
      data: [{ id: DEFAULT_MODEL, object: 'model', created: 1721172741, owned_by: 'mock' }],
    },
    ctx.rule?.headers,
  );
};

export const openAIRoutes: Record<string, RouteHandler> = {
  'POST /v1/chat/completions': chatCompletions,
  'GET /v1/models': listModels,
};

// ---------------------------------------------------------------------------
// Server

interface QueuedRule {
  rule: MockRule;
  method: string;
  path: string;
  remaining: number;
}

interface Waiter {
  n: number;
  resolve: (r: RecordedRequest[]) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

interface Sleeper {
  timer: NodeJS.Timeout;
  resolve: (ok: boolean) => void;
}

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

export async function startMockProvider(options: MockProviderOptions = {}): Promise<MockProvider> {
  const routes: Record<string, RouteHandler> = { ...openAIRoutes, ...options.routes };
  const requests: RecordedRequest[] = [];
  const rules: QueuedRule[] = [];
  const waiters = new Set<Waiter>();
  const sleepers = new Set<Sleeper>();
  const sockets = new Set<Socket>();
  const closeListeners = new Set<() => void>();
  let closed = false;
  let seq = 0;

  const sleep = (ms: number): Promise<boolean> => {
    if (closed) return Promise.resolve(false);
    if (ms <= 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const s: Sleeper = {
        resolve,
        timer: setTimeout(() => {
          sleepers.delete(s);
          resolve(!closed);
        }, ms),
      };
      sleepers.add(s);
    });
  };

  const notifyWaiters = (): void => {
    for (const w of waiters) {
      if (requests.length >= w.n) {
        clearTimeout(w.timer);
        waiters.delete(w);
        w.resolve(requests.slice());
      }
    }
  };

  const takeRule = (method: string, path: string): MockRule | undefined => {
    const idx = rules.findIndex((r) => r.method === method && r.path === path);
    if (idx < 0) return undefined;
    const q = rules[idx]!;
    q.remaining -= 1;
    if (q.remaining <= 0) rules.splice(idx, 1);
    return q.rule;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let clientGone = false;
    const goneListeners = new Set<() => void>();
    res.on('close', () => {
      if (!res.writableFinished) clientGone = true;
      for (const l of goneListeners) l();
    });
    res.on('error', () => {});

    const raw = await readBody(req);
    const body = raw.toString('utf8');
    const method = (req.method ?? 'GET').toUpperCase();
    const parsedUrl = new URL(req.url ?? '/', 'http://mock.invalid');
    const path = parsedUrl.pathname;
    const headers = flattenHeaders(req);
    const request: RecordedRequest = { method, path, search: parsedUrl.search, headers, body, raw, receivedAt: Date.now() };
    if ((headers['content-type'] ?? '').toLowerCase().includes('json') && body.length > 0) {
      try {
        request.json = JSON.parse(body);
      } catch {
        // leave json undefined for malformed bodies
      }
    }
    requests.push(request);
    const n = ++seq;
    const rule = takeRule(method, path);
    notifyWaiters();

    const gone = (): boolean => closed || clientGone || res.destroyed;
    const untilGone = (): Promise<void> =>
      gone()
        ? Promise.resolve()
        : new Promise((resolve) => {
            const done = (): void => {
              goneListeners.delete(done);
              closeListeners.delete(done);
              resolve();
            };
            goneListeners.add(done);
            closeListeners.add(done);
          });
    const sendJson = (status: number, payload: unknown, extra?: Record<string, string>): void => {
      if (gone()) return;
      const noBody = status === 204 || status === 304;
      const text = noBody ? '' : JSON.stringify(payload);
      res.writeHead(status, {
        ...(noBody ? {} : { 'content-type': 'application/json' }),
        'content-length': String(Buffer.byteLength(text)),
        'x-request-id': `req_mock_${n}`,
        ...extra,
      });
      res.end(text);
    };
    const ctx: RouteContext = {
      req,
      res,
      request,
      rule,
      seq: n,
      sleep,
      gone,
      untilGone,
      sendJson,
      sendError: (status, message, extra) => sendJson(status, openAIError(status, message), extra),
    };

    if (rule?.hang) {
      await untilGone();
      return;
    }
    if (rule?.delayMs !== undefined && rule.delayMs > 0) {
      if (!(await sleep(rule.delayMs)) || gone()) return;
    }
    if (rule?.status !== undefined && rule.status >= 400 && rule.body === undefined) {
      ctx.sendError(rule.status, undefined, rule.headers);
      return;
    }
    if (rule?.body !== undefined) {
      sendJson(rule.status ?? 200, rule.body, rule.headers);
      return;
    }
    const route = routes[`${method} ${path}`];
    if (route) {
      await route(ctx);
      return;
    }
    if (rule) {
      sendJson(rule.status ?? 200, {}, rule.headers);
      return;
    }
    ctx.sendError(404, `Unknown request URL: ${method} ${path}.`);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify(openAIError(500, `mock provider crashed: ${String(err)}`)));
      } else {
        res.destroy();
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  let closing: Promise<void> | undefined;

  return {
    url,
    baseUrl: `${url}/v1`,
    requests,
    program(rule: MockRule): void {
      const persistent = rule.persist === true || rule.times === Infinity;
      rules.push({
        rule,
        method: (rule.method ?? DEFAULT_METHOD).toUpperCase(),
        path: rule.path ?? DEFAULT_PATH,
        remaining: persistent ? Infinity : Math.max(1, rule.times ?? 1),
      });
    },
    reset(): void {
      rules.length = 0;
      requests.length = 0;
    },
    waitForRequests(n: number, timeoutMs = 5000): Promise<RecordedRequest[]> {
      if (requests.length >= n) return Promise.resolve(requests.slice());
      if (closed) return Promise.reject(new Error('mock provider is closed'));
      return new Promise((resolve, reject) => {
        const w: Waiter = {
          n,
          resolve,
          reject,
          timer: setTimeout(() => {
            waiters.delete(w);
            reject(
              new Error(
                `waitForRequests(${n}) timed out after ${timeoutMs} ms with ${requests.length} request(s)`,
              ),
            );
          }, timeoutMs),
        };
        waiters.add(w);
      });
    },
    close(): Promise<void> {
      if (closing) return closing;
      closed = true;
      for (const s of sleepers) {
        clearTimeout(s.timer);
        s.resolve(false);
      }
      sleepers.clear();
      for (const w of waiters) {
        clearTimeout(w.timer);
        w.reject(new Error('mock provider closed'));
      }
      waiters.clear();
      for (const l of [...closeListeners]) l();
      closing = new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        for (const socket of sockets) socket.destroy();
        sockets.clear();
      });
      return closing;
    },
  };
}
