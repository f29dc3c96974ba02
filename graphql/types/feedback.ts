import { createFeedback, updateFeedback, type FeedbackResult } from '../../src/services/feedback/write-feedback.ts';
import { builder } from '../builder.ts';
import { plain } from '../input.ts';

// Feedback (control-plane-schemas 2.13): workspace keys only.

const FeedbackResultRef = builder.objectRef<FeedbackResult>('FeedbackResult').implement({
  fields: (t) => ({
    status: t.exposeString('status'),
    message: t.exposeString('message'),
    feedback_ids: t.exposeStringList('feedback_ids'),
  }),
});

const CreateFeedbackInput = builder.inputType('CreateFeedbackInput', {
  fields: (t) => ({
    trace_id: t.string({ required: true }),
    value: t.int({ required: true, description: '−10 … 10' }),
    weight: t.float({ description: '0 … 1, default 1.0' }),
    metadata: t.field({ type: 'JSON' }),
  }),
});

const UpdateFeedbackInput = builder.inputType('UpdateFeedbackInput', {
  fields: (t) => ({
    value: t.int({ required: true, description: '−10 … 10' }),
    weight: t.float({ description: '0 … 1' }),
    metadata: t.field({ type: 'JSON' }),
  }),
});

builder.mutationFields((t) => ({
  createFeedback: t.field({
    type: FeedbackResultRef,
    errors: { directResult: true },
    args: { input: t.arg({ type: CreateFeedbackInput, required: true }) },
    resolve: (_, a, ctx) => createFeedback(ctx.em, ctx.actor, ctx.meta, plain(a.input)),
  }),
  updateFeedback: t.field({
    type: FeedbackResultRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateFeedbackInput, required: true }) },
    resolve: (_, a, ctx) => updateFeedback(ctx.em, ctx.actor, ctx.meta, String(a.id), plain(a.input)),
  }),
}));
