import type { EndpointName } from '../providers/contract.ts';

// The data plane's built-in routes (issue 6 item 1; api-catalogue §3, §4): method + path after
// /v1/ → endpoint name and body kind. Anything not here is pass-through.

/**
 * json: parsed once (model, stream; adapters translate it); stream: relayed as it arrives
 * (multipart, binary, or JSON the gateway does not need to read); none: no body.
 */
export type BodyKind = 'json' | 'stream' | 'none';

export interface EndpointRoute {
  /** The usage record's endpoint: an adapter EndpointName, or `files.list`-style for the rest. */
  endpoint: string;
  /** Set when an adapter may translate this operation. */
  adapterEndpoint?: EndpointName;
  body: BodyKind;
}

type Row = [method: string, pattern: string, endpoint: string, body: BodyKind, adapter?: EndpointName];

const ROWS: Row[] = [
  ['POST', 'chat/completions', 'chat.completions', 'json', 'chat.completions'],
  ['POST', 'completions', 'completions', 'json', 'completions'],
  ['POST', 'embeddings', 'embeddings', 'json', 'embeddings'],
  ['POST', 'images/generations', 'images.generations', 'json', 'images.generations'],
  ['POST', 'images/edits', 'images.edits', 'stream', 'images.edits'],
  ['POST', 'images/variations', 'images.variations', 'stream', 'images.variations'],
  ['POST', 'audio/speech', 'audio.speech', 'json', 'audio.speech'],
  ['POST', 'audio/transcriptions', 'audio.transcriptions', 'stream', 'audio.transcriptions'],
  ['POST', 'audio/translations', 'audio.translations', 'stream', 'audio.translations'],
  ['POST', 'moderations', 'moderations', 'json', 'moderations'],
  ['POST', 'rerank', 'rerank', 'json', 'rerank'],
  ['POST', 'ocr', 'ocr', 'json', 'ocr'],
  ['POST', 'messages', 'messages', 'json', 'messages'],
  ['POST', 'responses', 'responses', 'json', 'responses'],
  ['GET', 'responses/{id}', 'responses.get', 'none'],
  ['DELETE', 'responses/{id}', 'responses.delete', 'none'],
  ['POST', 'responses/{id}/cancel', 'responses.cancel', 'none'],
  ['GET', 'responses/{id}/input_items', 'responses.input_items', 'none'],
  ['GET', 'models', 'models.list', 'none'],
  ['GET', 'models/{id}', 'models.get', 'none'],
  ['POST', 'files', 'files.create', 'stream'],
  ['GET', 'files', 'files.list', 'none'],
  ['GET', 'files/{id}', 'files.get', 'none'],
  ['GET', 'files/{id}/content', 'files.content', 'none'],
  ['DELETE', 'files/{id}', 'files.delete', 'none'],
  ['POST', 'batches', 'batches.create', 'stream'],
  ['GET', 'batches', 'batches.list', 'none'],
  ['GET', 'batches/{id}', 'batches.get', 'none'],
  ['POST', 'batches/{id}/cancel', 'batches.cancel', 'none'],
  ['POST', 'fine_tuning/jobs', 'fine_tuning.jobs.create', 'stream'],
  ['GET', 'fine_tuning/jobs', 'fine_tuning.jobs.list', 'none'],
  ['GET', 'fine_tuning/jobs/{id}', 'fine_tuning.jobs.get', 'none'],
  ['POST', 'fine_tuning/jobs/{id}/cancel', 'fine_tuning.jobs.cancel', 'none'],
  ['POST', 'fine_tuning/jobs/{id}/pause', 'fine_tuning.jobs.pause', 'none'],
  ['POST', 'fine_tuning/jobs/{id}/resume', 'fine_tuning.jobs.resume', 'none'],
  ['GET', 'fine_tuning/jobs/{id}/events', 'fine_tuning.jobs.events', 'none'],
  ['GET', 'fine_tuning/jobs/{id}/checkpoints', 'fine_tuning.jobs.checkpoints', 'none'],
  ['POST', 'assistants', 'assistants.create', 'stream'],
  ['GET', 'assistants', 'assistants.list', 'none'],
  ['GET', 'assistants/{id}', 'assistants.get', 'none'],
  ['POST', 'assistants/{id}', 'assistants.update', 'stream'],
  ['DELETE', 'assistants/{id}', 'assistants.delete', 'none'],
  ['POST', 'threads', 'threads.create', 'stream'],
  ['POST', 'threads/runs', 'threads.create_and_run', 'stream'],
  ['GET', 'threads/{id}', 'threads.get', 'none'],
  ['POST', 'threads/{id}', 'threads.update', 'stream'],
  ['DELETE', 'threads/{id}', 'threads.delete', 'none'],
  ['POST', 'threads/{id}/messages', 'threads.messages.create', 'stream'],
  ['GET', 'threads/{id}/messages', 'threads.messages.list', 'none'],
  ['GET', 'threads/{id}/messages/{id}', 'threads.messages.get', 'none'],
  ['POST', 'threads/{id}/messages/{id}', 'threads.messages.update', 'stream'],
  ['DELETE', 'threads/{id}/messages/{id}', 'threads.messages.delete', 'none'],
  ['POST', 'threads/{id}/runs', 'threads.runs.create', 'stream'],
  ['GET', 'threads/{id}/runs', 'threads.runs.list', 'none'],
  ['GET', 'threads/{id}/runs/{id}', 'threads.runs.get', 'none'],
  ['POST', 'threads/{id}/runs/{id}', 'threads.runs.update', 'stream'],
  ['POST', 'threads/{id}/runs/{id}/cancel', 'threads.runs.cancel', 'none'],
  ['POST', 'threads/{id}/runs/{id}/submit_tool_outputs', 'threads.runs.submit_tool_outputs', 'stream'],
  ['GET', 'threads/{id}/runs/{id}/steps', 'threads.runs.steps.list', 'none'],
  ['GET', 'threads/{id}/runs/{id}/steps/{id}', 'threads.runs.steps.get', 'none'],
  ['POST', 'vector_stores', 'vector_stores.create', 'stream'],
  ['GET', 'vector_stores', 'vector_stores.list', 'none'],
  ['GET', 'vector_stores/{id}', 'vector_stores.get', 'none'],
  ['POST', 'vector_stores/{id}', 'vector_stores.update', 'stream'],
  ['DELETE', 'vector_stores/{id}', 'vector_stores.delete', 'none'],
  ['POST', 'vector_stores/{id}/search', 'vector_stores.search', 'stream'],
  ['POST', 'vector_stores/{id}/files', 'vector_stores.files.create', 'stream'],
  ['GET', 'vector_stores/{id}/files', 'vector_stores.files.list', 'none'],
  ['GET', 'vector_stores/{id}/files/{id}', 'vector_stores.files.get', 'none'],
  ['POST', 'vector_stores/{id}/files/{id}', 'vector_stores.files.update', 'stream'],
  ['DELETE', 'vector_stores/{id}/files/{id}', 'vector_stores.files.delete', 'none'],
  ['GET', 'vector_stores/{id}/files/{id}/content', 'vector_stores.files.content', 'none'],
  ['POST', 'vector_stores/{id}/file_batches', 'vector_stores.file_batches.create', 'stream'],
  ['GET', 'vector_stores/{id}/file_batches/{id}', 'vector_stores.file_batches.get', 'none'],
  ['POST', 'vector_stores/{id}/file_batches/{id}/cancel', 'vector_stores.file_batches.cancel', 'none'],
  ['GET', 'vector_stores/{id}/file_batches/{id}/files', 'vector_stores.file_batches.files', 'none'],
];

// Static paths (the hot ones) by one map lookup; parameterised ones by segment comparison.
const STATIC = new Map<string, EndpointRoute>();
const PARAM: { method: string; segments: string[]; route: EndpointRoute }[] = [];
for (const [method, pattern, endpoint, body, adapterEndpoint] of ROWS) {
  const route: EndpointRoute = adapterEndpoint ? { endpoint, body, adapterEndpoint } : { endpoint, body };
  if (pattern.includes('{')) PARAM.push({ method, segments: pattern.split('/'), route });
  else STATIC.set(`${method} ${pattern}`, route);
}

/** The built-in route for `path` (after /v1/, no query string), or null for pass-through. */
export function matchEndpoint(method: string, path: string): EndpointRoute | null {
  const exact = STATIC.get(`${method} ${path}`);
  if (exact) return exact;
  const parts = path.split('/');
  for (const p of PARAM) {
    if (p.method !== method || p.segments.length !== parts.length) continue;
    let ok = true;
    for (let i = 0; i < parts.length; i++) {
      const seg = p.segments[i]!;
      if (seg === '{id}' ? !parts[i] : seg !== parts[i]) {
        ok = false;
        break;
      }
    }
    if (ok) return p.route;
  }
  return null;
}
