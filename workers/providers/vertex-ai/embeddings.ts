// OpenAI embeddings -> Vertex AI text-embedding models' :predict
// (https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/text-embeddings-api):
// {instances:[{content, task_type?}], parameters:{outputDimensionality?}} ->
// {predictions:[{embeddings:{values, statistics:{token_count}}}]}.
import type { TokenCount } from '../contract.ts';
import { embeddingInputs, openAIEmbeddingList } from '../google/gemini-embeddings.ts';
import { asArray, asNumber, asRecord } from '../shared/openai-chat.ts';

export function vertexEmbedBody(body: Record<string, unknown>): Record<string, unknown> {
  const instances = embeddingInputs(body.input).map((content) => (typeof body.task_type === 'string' ? { content, task_type: body.task_type } : { content }));
  const out: Record<string, unknown> = { instances };
  if (typeof body.dimensions === 'number') out.parameters = { outputDimensionality: body.dimensions };
  return out;
}

const predictions = (json: unknown): Record<string, unknown>[] => asArray(asRecord(json).predictions).map((p) => asRecord(asRecord(p).embeddings));

export function vertexEmbedUsage(json: unknown): TokenCount | null {
  const list = predictions(json);
  if (list.length === 0) return null;
  const prompt = list.reduce((sum, e) => sum + asNumber(asRecord(e.statistics).token_count), 0);
  return { prompt, completion: 0, total: prompt };
}

export function vertexEmbedResponse(json: unknown, model: string, format: unknown): Record<string, unknown> {
  const vectors = predictions(json).map((e) => asArray(e.values).filter((v): v is number => typeof v === 'number'));
  return openAIEmbeddingList(vectors, model, format, vertexEmbedUsage(json)?.prompt ?? 0);
}
