/**
 * A mock of Cohere's v2 API (POST /v2/chat, /v2/embed, /v2/rerank) on 127.0.0.1, built on
 * mock-provider.ts's `routes`. Bearer auth is checked. Chat answers JSON or the typed SSE
 * events (message-start, content-*, tool-call-*, message-end with usage), with a tool call
 * when the request sets tool_choice REQUIRED. Embed answers one small vector per text;
 * rerank scores documents by the words they share with the query.
 */
import { startMockProvider, type MockProvider, type RouteContext } from './mock-provider.ts';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});

function authorized(ctx: RouteContext): boolean {
  if ((ctx.request.headers.authorization ?? '').startsWith('Bearer ')) return true;
  ctx.sendJson(401, { id: `err_${ctx.seq}`, message: 'no api key supplied' });
  return false;
}

async function chat(ctx: RouteContext): Promise<void> {
  if (!authorized(ctx)) return;
  const { res, rule } = ctx;
  const body = obj(ctx.request.json);
  const chunks = rule?.chunks ?? ['Hello', ' world', '!'];
  const u = rule?.usage ?? { prompt_tokens: 11, completion_tokens: 7 };
  const usage = {
    billed_units: { input_tokens: u.prompt_tokens, output_tokens: u.completion_tokens },
    tokens: { input_tokens: u.prompt_tokens + 100, output_tokens: u.completion_tokens },
  };
  const id = `cohere-mock-${ctx.seq}`;
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const tool = body.tool_choice === 'REQUIRED' && tools.length > 0 ? String(obj(obj(tools[0]).function).name) : undefined;
  const args = JSON.stringify({ query: chunks.join('') });
  const finish = tool ? 'TOOL_CALL' : 'COMPLETE';
  const call = { id: `call_mock_${ctx.seq}`, type: 'function', function: { name: tool, arguments: args } };

  if (body.stream !== true) {
    const message = tool
      ? { role: 'assistant', tool_plan: 'I will call the tool.', tool_calls: [call] }
      : { role: 'assistant', content: [{ type: 'text', text: chunks.join('') }] };
    ctx.sendJson(200, { id, finish_reason: finish, message, usage });
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (type: string, data: Json): void => {
    if (!ctx.gone()) res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  };
  send('message-start', { id, delta: { message: { role: 'assistant', content: [], tool_plan: '', tool_calls: [], citations: [] } } });
  if (tool) {
    send('tool-plan-delta', { delta: { message: { tool_plan: 'I will call the tool.' } } });
    send('tool-call-start', { index: 0, delta: { message: { tool_calls: { ...call, function: { name: tool, arguments: '' } } } } });
    const half = Math.floor(args.length / 2);
    for (const part of [args.slice(0, half), args.slice(half)])
      send('tool-call-delta', { index: 0, delta: { message: { tool_calls: { function: { arguments: part } } } } });
    send('tool-call-end', { index: 0 });
  } else {
    send('content-start', { index: 0, delta: { message: { content: { type: 'text', text: '' } } } });
    for (const text of chunks) send('content-delta', { index: 0, delta: { message: { content: { text } } } });
    send('content-end', { index: 0 });
  }
  send('message-end', { delta: { finish_reason: finish, usage } });
  res.end();
}

function embed(ctx: RouteContext): void {
  if (!authorized(ctx)) return;
  const body = obj(ctx.request.json);
  const texts = Array.isArray(body.texts) ? body.texts.map(String) : [];
  if (typeof body.input_type !== 'string') {
    ctx.sendJson(400, { id: `err_${ctx.seq}`, message: 'invalid request: input_type is required for embed-v3 models' });
    return;
  }
  ctx.sendJson(200, {
    id: `embed-mock-${ctx.seq}`,
    texts,
    embeddings: { float: texts.map((t, i) => [t.length / 10, i, 0.5]) },
    meta: { api_version: { version: '2' }, billed_units: { input_tokens: texts.join(' ').split(/\s+/).length } },
    response_type: 'embeddings_by_type',
  });
}

function rerank(ctx: RouteContext): void {
  if (!authorized(ctx)) return;
  const body = obj(ctx.request.json);
  const words = new Set(String(body.query ?? '').toLowerCase().split(/\W+/).filter(Boolean));
  const docs = Array.isArray(body.documents) ? body.documents.map(String) : [];
  const scored = docs
    .map((d, index) => {
      const w = d.toLowerCase().split(/\W+/).filter(Boolean);
      return { index, relevance_score: w.length === 0 ? 0 : w.filter((x) => words.has(x)).length / w.length };
    })
    .sort((a, b) => b.relevance_score - a.relevance_score);
  const topN = typeof body.top_n === 'number' ? body.top_n : scored.length;
  ctx.sendJson(200, {
    id: `rerank-mock-${ctx.seq}`,
    results: scored.slice(0, topN),
    meta: { api_version: { version: '2' }, billed_units: { search_units: 1 } },
  });
}

/** Cohere's base URL for this mock is `mock.url` (paths carry /v2), as api.cohere.ai. */
export function startMockCohere(): Promise<MockProvider> {
  return startMockProvider({ routes: { 'POST /v2/chat': chat, 'POST /v2/embed': embed, 'POST /v2/rerank': rerank } });
}
