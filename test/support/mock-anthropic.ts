/**
 * A mock of Anthropic's Messages API (POST /v1/messages) on 127.0.0.1, built on
 * mock-provider.ts's `routes`. Checks the headers Anthropic requires, answers JSON or the
 * SSE event sequence (message_start, content blocks, message_delta, message_stop), and
 * answers with a tool_use block when the request forces a tool (tool_choice any/tool).
 * Program it like the OpenAI mock: `chunks` are the text deltas, `usage` the tokens.
 */
import { startMockProvider, type MockProvider, type RouteContext } from './mock-provider.ts';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});

export const anthropicError = (type: string, message: string): Json => ({ type: 'error', error: { type, message } });

function forcedTool(body: Json): string | undefined {
  const choice = obj(body.tool_choice);
  const tools = Array.isArray(body.tools) ? body.tools : [];
  if (choice.type === 'tool' && typeof choice.name === 'string') return choice.name;
  if (choice.type === 'any' && tools.length > 0) return String(obj(tools[0]).name);
  return undefined;
}

async function messages(ctx: RouteContext): Promise<void> {
  const { res, rule } = ctx;
  const h = ctx.request.headers;
  if (!h['x-api-key']) {
    ctx.sendJson(401, anthropicError('authentication_error', 'x-api-key header is required'));
    return;
  }
  if (!h['anthropic-version']) {
    ctx.sendJson(400, anthropicError('invalid_request_error', 'anthropic-version header is required'));
    return;
  }
  const body = obj(ctx.request.json);
  if (typeof body.max_tokens !== 'number') {
    ctx.sendJson(400, anthropicError('invalid_request_error', 'max_tokens: Field required'));
    return;
  }
  const chunks = rule?.chunks ?? ['Hello', ' world', '!'];
  const usage = rule?.usage ?? { prompt_tokens: 11, completion_tokens: 7 };
  const id = `msg_mock_${ctx.seq}`;
  const model = typeof body.model === 'string' ? body.model : 'claude-mock';
  const tool = forcedTool(body);
  const input = { query: chunks.join('') };
  const stopReason = tool ? 'tool_use' : 'end_turn';

  if (body.stream !== true) {
    const content = tool
      ? [{ type: 'tool_use', id: `toolu_mock_${ctx.seq}`, name: tool, input }]
      : [{ type: 'text', text: chunks.join('') }];
    ctx.sendJson(rule?.status ?? 200, {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage: { input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens, cache_read_input_tokens: 0 },
    }, rule?.headers);
    return;
  }

  res.writeHead(rule?.status ?? 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...rule?.headers });
  const send = (type: string, data: Json): void => {
    if (!ctx.gone()) res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  };
  send('message_start', {
    message: {
      id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null,
      usage: { input_tokens: usage.prompt_tokens, output_tokens: 1, cache_read_input_tokens: 0 },
    },
  });
  send('ping', {});
  if (tool) {
    send('content_block_start', { index: 0, content_block: { type: 'tool_use', id: `toolu_mock_${ctx.seq}`, name: tool, input: {} } });
    const json = JSON.stringify(input);
    const half = Math.floor(json.length / 2);
    send('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '' } });
    send('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: json.slice(0, half) } });
    send('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: json.slice(half) } });
  } else {
    send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    for (const text of chunks) {
      if (rule?.chunkDelayMs && !(await ctx.sleep(rule.chunkDelayMs))) return;
      send('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });
    }
  }
  send('content_block_stop', { index: 0 });
  send('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.completion_tokens } });
  send('message_stop', {});
  res.end();
}

/** Anthropic's base URL for this mock is `mock.baseUrl` (…/v1), as api.anthropic.com/v1. */
export function startMockAnthropic(): Promise<MockProvider> {
  return startMockProvider({ routes: { 'POST /v1/messages': messages } });
}
