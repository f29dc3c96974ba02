/**
 * A mock of Mistral's API (POST /v1/chat/completions, /v1/embeddings, /v1/ocr) on 127.0.0.1,
 * built on mock-provider.ts's `routes`. It enforces what differs from OpenAI: tool call ids of
 * exactly 9 characters [a-zA-Z0-9], and no unknown (OpenAI-only) fields (422, as Mistral's
 * validation does). Streams are OpenAI SSE with usage on the last chunk; tool_choice `any`
 * answers with a tool call.
 */
import { startMockProvider, type MockProvider, type RouteContext } from './mock-provider.ts';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

const CHAT_FIELDS = new Set([
  'model', 'messages', 'temperature', 'top_p', 'max_tokens', 'stream', 'stop', 'random_seed', 'response_format', 'tools',
  'tool_choice', 'presence_penalty', 'frequency_penalty', 'n', 'prediction', 'parallel_tool_calls', 'safe_prompt', 'prompt_mode',
]);

export const mistralError = (message: unknown, type: string, code: string | null = null): Json => ({ object: 'error', message, type, param: null, code });

function authorized(ctx: RouteContext): boolean {
  if ((ctx.request.headers.authorization ?? '').startsWith('Bearer ')) return true;
  ctx.sendJson(401, { message: 'Unauthorized', request_id: `req_${ctx.seq}` });
  return false;
}

function invalid(ctx: RouteContext, body: Json): boolean {
  const extra = Object.keys(body).filter((k) => !CHAT_FIELDS.has(k));
  if (extra.length > 0) {
    ctx.sendJson(422, mistralError({ detail: extra.map((k) => ({ type: 'extra_forbidden', loc: ['body', k], msg: 'Extra inputs are not permitted' })) }, 'invalid_request_message_error'));
    return true;
  }
  for (const m of arr(body.messages)) {
    const ids = [...arr(obj(m).tool_calls).map((c) => obj(c).id), ...(obj(m).tool_call_id === undefined ? [] : [obj(m).tool_call_id])];
    const bad = ids.find((id) => typeof id !== 'string' || !/^[a-zA-Z0-9]{9}$/.test(id));
    if (bad !== undefined) {
      ctx.sendJson(400, mistralError(`Tool call id was ${String(bad)} but must be a-z, A-Z, 0-9, with a length of 9.`, 'invalid_function_call', '3280'));
      return true;
    }
  }
  return false;
}

async function chat(ctx: RouteContext): Promise<void> {
  if (!authorized(ctx)) return;
  const body = obj(ctx.request.json);
  if (invalid(ctx, body)) return;
  const { res, rule } = ctx;
  const chunks = rule?.chunks ?? ['Hello', ' world', '!'];
  const u = rule?.usage ?? { prompt_tokens: 11, completion_tokens: 7 };
  const usage = { prompt_tokens: u.prompt_tokens, completion_tokens: u.completion_tokens, total_tokens: u.prompt_tokens + u.completion_tokens };
  const id = `mistral-mock-${ctx.seq}`;
  const model = String(body.model ?? 'mistral-small-latest');
  const created = Math.floor(Date.now() / 1000);
  const tools = arr(body.tools);
  const tool = body.tool_choice === 'any' && tools.length > 0 ? String(obj(obj(tools[0]).function).name) : undefined;
  const call = { id: `Ab3dE${String(ctx.seq).padStart(4, '0')}`, type: 'function', function: { name: tool, arguments: JSON.stringify({ query: chunks.join('') }) }, index: 0 };
  const finish = tool ? 'tool_calls' : 'stop';

  if (body.stream !== true) {
    const message = tool ? { role: 'assistant', content: '', tool_calls: [call] } : { role: 'assistant', content: chunks.join(''), tool_calls: null };
    ctx.sendJson(200, { id, object: 'chat.completion', created, model, choices: [{ index: 0, message, finish_reason: finish }], usage });
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (choice: Json, extra: Json = {}): void => {
    if (!ctx.gone()) res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, ...choice }], ...extra })}\n\n`);
  };
  send({ delta: { role: 'assistant', content: '' }, finish_reason: null });
  if (tool) send({ delta: { tool_calls: [call] }, finish_reason: null });
  else for (const text of chunks) send({ delta: { content: text }, finish_reason: null });
  send({ delta: { content: '' }, finish_reason: finish }, { usage });
  res.end('data: [DONE]\n\n');
}

function embeddings(ctx: RouteContext): void {
  if (!authorized(ctx)) return;
  const body = obj(ctx.request.json);
  const extra = Object.keys(body).filter((k) => !['model', 'input', 'output_dimension', 'output_dtype', 'encoding_format'].includes(k));
  if (extra.length > 0) {
    ctx.sendJson(422, mistralError({ detail: extra.map((k) => ({ type: 'extra_forbidden', loc: ['body', k] })) }, 'invalid_request_message_error'));
    return;
  }
  const inputs = typeof body.input === 'string' ? [body.input] : arr(body.input).map(String);
  const dims = typeof body.output_dimension === 'number' ? body.output_dimension : 3;
  ctx.sendJson(200, {
    id: `emb-mock-${ctx.seq}`,
    object: 'list',
    data: inputs.map((t, index) => ({ object: 'embedding', embedding: Array.from({ length: dims }, (_, k) => (k === 0 ? t.length : 0.25)), index })),
    model: body.model,
    usage: { prompt_tokens: inputs.length * 2, total_tokens: inputs.length * 2, completion_tokens: 0 },
  });
}

function ocr(ctx: RouteContext): void {
  if (!authorized(ctx)) return;
  const body = obj(ctx.request.json);
  const doc = obj(body.document);
  const url = String(doc.document_url ?? doc.image_url ?? '');
  ctx.sendJson(200, {
    pages: [{ index: 0, markdown: `# Page of ${url}`, images: [], dimensions: { dpi: 200, height: 2200, width: 1700 } }],
    model: body.model,
    document_annotation: null,
    usage_info: { pages_processed: 1, doc_size_bytes: 1024 },
  });
}

/** Mistral's base URL for this mock is `mock.baseUrl` (…/v1), as api.mistral.ai/v1. */
export function startMockMistral(): Promise<MockProvider> {
  return startMockProvider({ routes: { 'POST /v1/chat/completions': chat, 'POST /v1/embeddings': embeddings, 'POST /v1/ocr': ocr } });
}
