// The contract every provider adapter implements (one folder each under workers/providers).
// Adapters are pure web-standard code: they build the upstream call and translate answers;
// the pipeline sends it (UpstreamFetch), routes, retries and accounts (ARCHITECTURE.md, step 5).
import type { ProviderCredentials } from '../../src/domain/provider-credentials.ts';
import type { UpstreamFetch } from '../contracts.ts';

/** Data-plane operations in OpenAI's shapes (issue 6 item 1), plus Anthropic's own `messages`. */
export type EndpointName =
  | 'chat.completions'
  | 'completions'
  | 'embeddings'
  | 'images.generations'
  | 'images.edits'
  | 'images.variations'
  | 'audio.speech'
  | 'audio.transcriptions'
  | 'audio.translations'
  | 'moderations'
  | 'rerank'
  | 'responses'
  | 'messages'
  | 'ocr';

/** Tokens as the provider reported them; cached prompt tokens are part of `prompt`. */
export interface TokenCount {
  prompt: number;
  completion: number;
  total: number;
  cachedPrompt?: number;
}

export type { ProviderCredentials };

/** One call of one target. */
export interface CallContext {
  provider: string;
  credentials: ProviderCredentials;
  /** `x-gateway-custom-host` or the target's custom_host, SSRF-checked, no trailing slash. Replaces baseUrl() exactly. */
  customHost?: string;
  /** The model the caller asked for (after override_params). */
  model: string;
  stream: boolean;
  /** For token exchanges (Vertex service accounts); the same undici/Deno fetch the pipeline uses. */
  upstream: UpstreamFetch;
  now(): number;
}

/** The request to send upstream. Header names lower-case. */
export interface UpstreamCall {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | Uint8Array | null;
}

/**
 * Translates a provider's stream into OpenAI's SSE (`data: {chat.completion.chunk}\n\n` ...
 * `data: [DONE]\n\n`). Bytes may split anywhere, including inside a UTF-8 character or an
 * event-stream frame.
 */
export interface StreamTranslator {
  /** Provider bytes in, SSE text out ('' when nothing complete yet). */
  push(chunk: Uint8Array): string;
  /** The upstream ended: flush, and end with `data: [DONE]\n\n`. */
  end(): string;
  /** Tokens seen in the stream so far (null until the provider reported any). */
  readonly usage: TokenCount | null;
}

export interface EndpointAdapter {
  /** The caller's body (OpenAI shape; Anthropic's for `messages`) to the provider's request. */
  request(body: Record<string, unknown>, ctx: CallContext): UpstreamCall | Promise<UpstreamCall>;
  /** The provider's 2xx JSON to the caller's shape. Absent: relayed unchanged. */
  response?(json: unknown, ctx: CallContext): unknown;
  /** The provider's error JSON to `{error: {message, type, param, code}}`. Absent: relayed unchanged. */
  error?(status: number, json: unknown, ctx: CallContext): unknown;
  /** Absent: the provider streams OpenAI SSE already (the pipeline relays it). */
  stream?(ctx: CallContext): StreamTranslator;
  /** Tokens from the provider's JSON answer (before response()). */
  usage?(json: unknown): TokenCount | null;
}

export interface ProviderAdapter {
  /** The reference gateway's id: `openai`, `anthropic`, `bedrock`, `vertex-ai`, ... */
  name: string;
  /** The default base URL (exactly the reference gateway's, so a custom host that works there works here). */
  baseUrl(ctx: CallContext): string;
  /** The provider's own auth headers (async for signing or token exchange). */
  authHeaders(ctx: CallContext): Record<string, string> | Promise<Record<string, string>>;
  /** Caller headers this provider understands and may receive (lower-case). */
  forwardedHeaders: readonly string[];
  endpoints: Partial<Record<EndpointName, EndpointAdapter>>;
  /** Pass-through: the upstream URL for the path after `/v1/` (default `${base}/${path}`). */
  passThroughUrl?(path: string, ctx: CallContext): string;
  /**
   * Pass-through, for providers whose auth covers the whole request (Bedrock's SigV4 signs the
   * body): returns the built call signed. Present: the pipeline calls it last, instead of
   * merging authHeaders() (reference-gateway-behaviour.md section 4, pass-through headers).
   */
  signPassThrough?(call: UpstreamCall, ctx: CallContext): Promise<UpstreamCall>;
}
