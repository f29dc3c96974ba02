import { AppError, invalidParameter } from '../../src/domain/errors.ts';
import { bufferedResponse, toHeaders } from '../../src/domain/http/buffered-response.ts';
import { afterResponse } from '../pipeline/after-response.ts';
import type { UpstreamFetch, UpstreamResponse } from '../contracts.ts';
import type { RequestState } from '../pipeline/request-state.ts';
import type { Route } from '../pipeline/resolve-route.ts';
import { SseUsageTap } from '../pipeline/sse-usage-tap.ts';
import { tokensFromUsage } from '../pipeline/tokens.ts';
import { requestHeadersFor, responseHeadersFrom } from '../pipeline/upstream-headers.ts';

interface ChatBody {
  model?: unknown;
  messages?: unknown;
  stream?: unknown;
  stream_options?: { include_usage?: unknown } | null;
}

/** Parses just enough of the body to route and account; the rest goes upstream untouched. */
export function parseChatBody(text: string): { body: ChatBody; upstreamBody: string; injectedUsage: boolean } {
  let body: ChatBody;
  try {
    body = JSON.parse(text) as ChatBody;
  } catch {
    throw new AppError(400, 'invalid_request_error', 'invalid_json', 'The request body is not valid JSON.', 'body');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalidParameter('body', 'The request body must be a JSON object.');
  if (typeof body.model !== 'string' || !body.model) throw invalidParameter('model', 'model is required (a string).');
  if (!Array.isArray(body.messages)) throw invalidParameter('messages', 'messages is required (an array).');
  if (body.stream !== true || body.stream_options?.include_usage === true) return { body, upstreamBody: text, injectedUsage: false };
  // Ask the provider for the final usage chunk; the caller does not see it (sse-usage-tap).
  const withUsage = { ...body, stream_options: { ...(body.stream_options ?? {}), include_usage: true } };
  return { body, upstreamBody: JSON.stringify(withUsage), injectedUsage: true };
}

export interface Finish {
  (state: RequestState): void;
}

/** POST /v1/chat/completions to an OpenAI-compatible upstream; JSON comes back unchanged, streams chunk by chunk. */
export async function chatCompletions(request: Request, state: RequestState, route: Route, upstream: UpstreamFetch, finish: Finish): Promise<Response> {
  const parsed = parseChatBody(await request.text());
  state.model = parsed.body.model as string;
  state.isStream = parsed.body.stream === true;

  let res: UpstreamResponse;
  try {
    res = await upstream(`${route.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: requestHeadersFor(request.headers, route.provider.forwardedHeaders, route.authHeaders),
      body: parsed.upstreamBody,
      signal: request.signal,
    });
  } catch (err) {
    if (request.signal.aborted) throw new AppError(499, 'invalid_request_error', 'client_closed_request', 'The client closed the request.');
    throw new AppError(502, 'upstream_error', 'upstream_unreachable', `Could not reach ${route.provider.name}: ${(err as Error).message ?? err}`);
  }
  state.markUpstreamHeaders();
  state.status = res.status;
  const headers = responseHeadersFrom(res.headers, { 'x-gateway-trace-id': state.traceId, 'x-gateway-provider': route.provider.name });

  const contentType = res.headers['content-type'];
  const isSse = typeof contentType === 'string' && contentType.includes('text/event-stream');
  if (!isSse) {
    const bytes = await res.bytes();
    if (res.status >= 400) state.errorCode = `upstream_${res.status}`;
    // Usage is read after the answer is handed back, so it never delays the caller.
    afterResponse(() => {
      try {
        const json = JSON.parse(new TextDecoder().decode(bytes)) as { usage?: unknown };
        state.tokens = tokensFromUsage(json.usage) ?? state.tokens;
      } catch {
        /* a non-JSON body has no usage */
      }
      finish(state);
    });
    return bufferedResponse(bytes, res.status, headers);
  }

  const tap = new SseUsageTap({ hideUsageChunk: parsed.injectedUsage });
  const reader = res.stream().getReader();
  let done = false;
  const complete = (errorCode = '') => {
    if (done) return;
    done = true;
    if (tap.tokens) state.tokens = tap.tokens;
    if (errorCode) state.errorCode = errorCode;
    finish(state);
  };
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        for (;;) {
          const { value, done: ended } = await reader.read();
          if (ended) {
            const rest = tap.end();
            if (rest) controller.enqueue(rest);
            controller.close();
            complete();
            return;
          }
          const out = tap.push(value);
          if (out) {
            controller.enqueue(out);
            return;
          }
        }
      } catch (err) {
        complete(request.signal.aborted ? 'client_closed_request' : 'upstream_stream_error');
        controller.error(err);
      }
    },
    cancel(reason) {
      complete('client_closed_request');
      return reader.cancel(reason);
    },
  });
  return new Response(stream, { status: res.status, headers: toHeaders(headers) });
}
