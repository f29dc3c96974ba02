// OCR (POST /v1/ocr): Mistral's own API, body as given (with the routed model), answer relayed
// unchanged ({pages:[{index, markdown, images, dimensions}], model, usage_info}). OCR is billed
// by pages (usage_info.pages_processed), not tokens, so it reports no TokenCount.
import { invalidParameter } from '../../../src/domain/errors.ts';
import type { CallContext, EndpointAdapter } from '../contract.ts';
import { openAIError } from './errors.ts';
import { isObj, type Json } from '../shared/json.ts';
import { jsonCall } from './url.ts';

export const ocrEndpoint: EndpointAdapter = {
  request(body: Json, ctx: CallContext) {
    if (!isObj(body.document)) throw invalidParameter('document', 'document must be an object (document_url or image_url).');
    return jsonCall(ctx, '/ocr', { ...body, model: ctx.model });
  },
  error: (status, json) => openAIError(status, json),
};
