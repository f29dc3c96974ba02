// Rerank <-> Cohere v2 rerank (POST /v2/rerank); answers the spec's "Rerank result" shape
// (object, results[index, relevance_score, document{text}], model, id, usage{search_units},
// provider). Fields of the rerank body meant for other providers are left out; anything else
// (provider-specific extras) is forwarded as given.
import { invalidParameter } from '../../../src/domain/errors.ts';
import type { CallContext, EndpointAdapter } from '../contract.ts';
import { recallCall, rememberCall } from './call-state.ts';
import { openAIError } from './errors.ts';
import { arr, isObj, num, obj, str, type Json } from '../shared/json.ts';
import { jsonCall } from './url.ts';

/** Spec rerank fields Cohere v2 does not take (return_documents is answered by the gateway). */
const NOT_FOR_COHERE = new Set(['model', 'return_documents', 'priority', 'rank_fields', 'truncation', 'parameters', 'documents']);

function documentText(doc: unknown, i: number): string {
  if (typeof doc === 'string') return doc;
  if (isObj(doc) && typeof doc.text === 'string') return doc.text;
  throw invalidParameter(`documents[${i}]`, 'Documents must be strings (or objects with a text field).');
}

export const rerankEndpoint: EndpointAdapter = {
  request(body: Json, ctx: CallContext) {
    if (typeof body.query !== 'string') throw invalidParameter('query', 'query must be a string.');
    if (!Array.isArray(body.documents)) throw invalidParameter('documents', 'documents must be an array.');
    const documents = body.documents.map(documentText);
    rememberCall(ctx, { documents, returnDocuments: body.return_documents === true });
    const payload: Json = { model: ctx.model, documents };
    for (const [k, v] of Object.entries(body)) if (!NOT_FOR_COHERE.has(k) && v !== undefined) payload[k] = v;
    return jsonCall(ctx, '/v2/rerank', payload);
  },
  response(raw: unknown, ctx: CallContext) {
    const json = obj(raw);
    const state = recallCall(ctx);
    const results = arr(json.results).map((r) => {
      const item = obj(r);
      const index = num(item.index) ?? 0;
      const out: Json = { index, relevance_score: num(item.relevance_score) ?? 0 };
      const text = str(obj(item.document).text) ?? (state.returnDocuments ? state.documents?.[index] : undefined);
      if (text !== undefined) out.document = { text };
      return out;
    });
    return {
      object: 'list',
      results,
      model: ctx.model,
      id: str(json.id) ?? '',
      usage: { search_units: num(obj(obj(json.meta).billed_units).search_units) ?? 0 },
      provider: 'cohere',
    };
  },
  error: (status, json) => openAIError(status, json),
  // Rerank is billed in search units, not tokens.
  usage: () => null,
};
