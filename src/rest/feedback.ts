import { ERROR_FIELDS, fieldOrError, json } from './graphql-result.ts';
import { readJsonBody } from './read-body.ts';
import type { RestContext, RestRoute } from './types.ts';

// Feedback (api-catalogue "Feedback (2)"; control-plane-schemas 2.13) → `{status, message, feedback_ids}`.

// `status` is aliased: GatewayError.status (the HTTP status, Int) shares the selection.
const RESULT = `__typename ... on FeedbackResult { result_status: status message feedback_ids } ${ERROR_FIELDS}`;
const CREATE = `mutation CreateFeedback($input: CreateFeedbackInput!) { createFeedback(input: $input) { ${RESULT} } }`;
const UPDATE = `mutation UpdateFeedback($id: ID!, $input: UpdateFeedbackInput!) { updateFeedback(id: $id, input: $input) { ${RESULT} } }`;

const answer = ({ result_status, message, feedback_ids }: Record<string, unknown>) => ({ status: result_status, message, feedback_ids });

async function create(ctx: RestContext): Promise<Response> {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  const out = fieldOrError<Record<string, unknown>>(await ctx.run(CREATE, { input: body.value }, ctx.request, ctx.ip), 'createFeedback');
  return out.ok ? json(answer(out.value)) : out.response;
}

async function update(ctx: RestContext): Promise<Response> {
  const body = await readJsonBody(ctx.request);
  if (!body.ok) return body.response;
  const out = fieldOrError<Record<string, unknown>>(await ctx.run(UPDATE, { id: ctx.params.id, input: body.value }, ctx.request, ctx.ip), 'updateFeedback');
  return out.ok ? json(answer(out.value)) : out.response;
}

export const feedbackRoutes: RestRoute[] = [
  { method: 'POST', path: '/v1/feedback', handler: create },
  { method: 'PUT', path: '/v1/feedback/:id', handler: update },
];
