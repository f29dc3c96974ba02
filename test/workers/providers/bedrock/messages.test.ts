import { describe, expect, it } from 'vitest';
import { bedrockAdapter } from '../../../../workers/providers/bedrock/adapter.ts';
import type { CallContext } from '../../../../workers/providers/contract.ts';
import { eventFrame } from '../../../support/mock-bedrock.ts';
import { context, namedEvents, pushBytewise } from '../google/round-trip.ts';

const MODEL = 'anthropic.claude-3-haiku-20240307-v1:0';
const ctx = (over: Partial<CallContext> = {}): CallContext =>
  context({ provider: 'bedrock', model: MODEL, credentials: { awsAccessKeyId: 'AK', awsSecretAccessKey: 'SK', awsRegion: 'us-east-1' }, ...over });
const messages = bedrockAdapter.endpoints.messages!;
const chunk = (event: unknown): Buffer =>
  eventFrame({ ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' }, Buffer.from(JSON.stringify({ bytes: Buffer.from(JSON.stringify(event)).toString('base64') })));

describe('bedrock messages (Anthropic on InvokeModel)', () => {
  it('builds the InvokeModel call: model out of the body, bedrock anthropic_version in, stream in the action', async () => {
    const call = await messages.request({ model: MODEL, stream: true, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }, ctx({ stream: true }));
    expect(call.url).toBe('https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1%3A0/invoke-with-response-stream');
    expect(JSON.parse(call.body as string)).toEqual({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] });
    expect(call.headers.accept).toBe('application/vnd.amazon.eventstream');
    expect(messages.response).toBeUndefined();
  });

  it('reads usage from the JSON answer, cache tokens included', () => {
    expect(messages.usage!({ usage: { input_tokens: 5, output_tokens: 2, cache_read_input_tokens: 10, cache_creation_input_tokens: 1 } })).toEqual({ prompt: 16, completion: 2, total: 18, cachedPrompt: 10 });
  });

  it('re-emits the chunk events as Anthropic SSE, split at every byte, dropping Bedrock metrics', () => {
    const bytes = Buffer.concat([
      chunk({ type: 'message_start', message: { id: 'msg_1', usage: { input_tokens: 8, output_tokens: 1 } } }),
      chunk({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Olá ✓' } }),
      chunk({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 6 } }),
      chunk({ type: 'message_stop', 'amazon-bedrock-invocationMetrics': { inputTokenCount: 8, outputTokenCount: 6 } }),
    ]);
    const t = messages.stream!(ctx({ stream: true }));
    const text = pushBytewise(t, bytes) + t.end();
    const events = namedEvents(text);
    expect(events.map((e) => e.event)).toEqual(['message_start', 'content_block_delta', 'message_delta', 'message_stop']);
    expect(events[1]!.data.delta).toEqual({ type: 'text_delta', text: 'Olá ✓' });
    expect(events[3]!.data).toEqual({ type: 'message_stop' });
    expect(t.usage).toEqual({ prompt: 8, completion: 6, total: 14 });
  });

  it('ends with an Anthropic error event on a corrupt frame', () => {
    const t = messages.stream!(ctx({ stream: true }));
    const bad = eventFrame({ ':event-type': 'chunk' }, Buffer.from('{"bytes":"e30="}'), true);
    expect(namedEvents(t.push(bad))[0]).toMatchObject({ event: 'error', data: { type: 'error', error: { type: 'api_error' } } });
  });
});
