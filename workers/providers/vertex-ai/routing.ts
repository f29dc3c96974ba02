// Where a Vertex AI call goes: https://{region}-aiplatform.googleapis.com (or the global
// endpoint) + /v1/projects/{project}/locations/{region}/publishers/{publisher}/models/{model}:{method}.
// The publisher follows the model: Gemini and text-embedding models are Google's, Claude
// models Anthropic's; a `publisher.` prefix (e.g. `anthropic.claude-...`) is also accepted.
import { AppError } from '../../../src/domain/errors.ts';
import type { CallContext } from '../contract.ts';
import { parseServiceAccount } from './service-account.ts';

export const DEFAULT_REGION = 'us-central1';
const PUBLISHERS = new Set(['google', 'anthropic', 'meta', 'mistralai']);

export type Publisher = 'google' | 'anthropic' | 'meta' | 'mistralai';

export const vertexRegion = (ctx: CallContext): string => ctx.credentials.vertexRegion || DEFAULT_REGION;

export function vertexBaseUrl(ctx: CallContext): string {
  const region = vertexRegion(ctx);
  return region === 'global' ? 'https://aiplatform.googleapis.com' : `https://${region}-aiplatform.googleapis.com`;
}

export function vertexModel(model: string): { publisher: Publisher; model: string } {
  const dot = model.indexOf('.');
  const prefix = dot > 0 ? model.slice(0, dot) : '';
  if (PUBLISHERS.has(prefix)) return { publisher: prefix as Publisher, model: model.slice(dot + 1) };
  return { publisher: model.startsWith('claude') ? 'anthropic' : 'google', model };
}

export function vertexProject(ctx: CallContext): string {
  const { vertexProjectId, vertexServiceAccountJson } = ctx.credentials;
  if (vertexProjectId) return vertexProjectId;
  const fromKey = vertexServiceAccountJson ? parseServiceAccount(vertexServiceAccountJson).project_id : undefined;
  if (fromKey) return fromKey;
  throw new AppError(400, 'invalid_request_error', 'missing_provider_credentials', 'Vertex AI needs vertex_project_id (x-gateway-vertex-project-id) or a service account key with project_id.');
}

export function vertexModelUrl(ctx: CallContext, publisher: Publisher, model: string, method: string): string {
  const base = ctx.customHost ?? vertexBaseUrl(ctx);
  const project = encodeURIComponent(vertexProject(ctx));
  return `${base}/v1/projects/${project}/locations/${encodeURIComponent(vertexRegion(ctx))}/publishers/${publisher}/models/${encodeURIComponent(model).replace(/%40/g, '@')}:${method}`;
}
