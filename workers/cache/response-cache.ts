// Exact ("simple") response cache (issue 7 item 5), in the shared store (Redis; in-process in the
// embedded default). Better than the reference: max_age in seconds as documented, bounded entry
// size, streamed answers cached too, and a JSON answer replayed as a stream for a stream request.
import type { CacheSettings } from '../../src/domain/config/config-schema.ts';
import type { SharedStore } from '../../src/domain/store.ts';

export type CacheStatus = 'HIT' | 'MISS' | 'REFRESH' | 'DISABLED';

export const DEFAULT_MAX_AGE_S = 24 * 3600;

export interface CacheScope {
  workspaceId: string;
  provider: string;
  endpoint: string;
  /** x-gateway-cache-namespace: separates otherwise equal requests. */
  namespace: string | null;
}

export interface CachedAnswer {
  status: number;
  contentType: string;
  /** `sse` when the answer was a stream. */
  kind: 'json' | 'sse';
  body: string;
}

/** The request's cache identity: stream flags and the caller's `user` do not change the answer. */
function normalised(body: Record<string, unknown>): unknown {
  const { stream: _s, stream_options: _so, ...rest } = body;
  return rest;
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

export async function cacheKey(scope: CacheScope, body: Record<string, unknown>): Promise<string> {
  const text = canonical({ w: scope.workspaceId, p: scope.provider, e: scope.endpoint, n: scope.namespace ?? '', m: body.model ?? null, b: normalised(body) });
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  let hex = '';
  for (const b of digest) hex += b.toString(16).padStart(2, '0');
  return `cache:{${scope.workspaceId}}:${hex}`;
}

export class ResponseCache {
  constructor(
    private readonly store: SharedStore,
    /** Answers larger than this are not cached (bounded memory, in Redis too). */
    private readonly maxEntryBytes = 1_048_576,
  ) {}

  async get(key: string): Promise<CachedAnswer | null> {
    const raw = await this.store.get(key).catch(() => null);
    if (!raw) return null;
    try {
      return JSON.parse(raw) as CachedAnswer;
    } catch {
      return null;
    }
  }

  /** Stores 2xx answers only; never throws (a cache that fails is a miss). */
  async put(key: string, answer: CachedAnswer, settings: CacheSettings): Promise<boolean> {
    if (answer.status < 200 || answer.status >= 300) return false;
    const raw = JSON.stringify(answer);
    if (raw.length > this.maxEntryBytes) return false;
    const ttlMs = (settings.max_age ?? DEFAULT_MAX_AGE_S) * 1_000;
    return this.store.set(key, raw, ttlMs).then(
      () => true,
      () => false,
    );
  }
}

/** A cached chat completion (JSON) as the stream a stream request expects. */
export function chatCompletionToSse(json: string, includeUsage: boolean): string | null {
  let c: {
    id?: string;
    created?: number;
    model?: string;
    system_fingerprint?: string;
    choices?: { index?: number; message?: { role?: string; content?: string | null; tool_calls?: unknown[] }; finish_reason?: string | null; logprobs?: unknown }[];
    usage?: unknown;
  };
  try {
    c = JSON.parse(json);
  } catch {
    return null;
  }
  if (!Array.isArray(c.choices)) return null;
  const base = { id: c.id ?? '', object: 'chat.completion.chunk', created: c.created ?? Math.floor(Date.now() / 1_000), model: c.model ?? '', ...(c.system_fingerprint ? { system_fingerprint: c.system_fingerprint } : {}) };
  const events: unknown[] = [];
  for (const choice of c.choices) {
    const index = choice.index ?? 0;
    const m = choice.message ?? {};
    events.push({ ...base, choices: [{ index, delta: { role: m.role ?? 'assistant', content: '' }, finish_reason: null }] });
    if (m.content) events.push({ ...base, choices: [{ index, delta: { content: m.content }, finish_reason: null }] });
    if (Array.isArray(m.tool_calls) && m.tool_calls.length) {
      events.push({ ...base, choices: [{ index, delta: { tool_calls: m.tool_calls.map((t, i) => ({ index: i, ...(t as object) })) }, finish_reason: null }] });
    }
    events.push({ ...base, choices: [{ index, delta: {}, finish_reason: choice.finish_reason ?? 'stop' }] });
  }
  if (includeUsage && c.usage) events.push({ ...base, choices: [], usage: c.usage });
  return `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n`;
}

/** What the cache does for this request: the status header and whether to look up / store. */
export function cachePlan(settings: CacheSettings | undefined, forceRefresh: boolean): { status: CacheStatus; lookup: boolean; store: boolean } {
  if (!settings || settings.mode !== 'simple') return { status: 'DISABLED', lookup: false, store: false };
  if (forceRefresh) return { status: 'REFRESH', lookup: false, store: true };
  return { status: 'MISS', lookup: true, store: true };
}
