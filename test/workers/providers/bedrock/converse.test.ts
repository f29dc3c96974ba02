import { describe, expect, it } from 'vitest';
import { bedrockAdapter } from '../../../../workers/providers/bedrock/adapter.ts';
import type { CallContext, UpstreamCall } from '../../../../workers/providers/contract.ts';
import { eventFrame } from '../../../support/mock-bedrock.ts';
import { collectChunks, context, pushBytewise, sseData } from '../google/round-trip.ts';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const creds = { awsAccessKeyId: 'AKIDEXAMPLE', awsSecretAccessKey: 'secret', awsRegion: 'eu-west-3' };
const ctx = (over: Partial<CallContext> = {}): CallContext =>
  context({ provider: 'bedrock', model: 'anthropic.claude-3-5-sonnet-20240620-v1:0', credentials: creds, now: () => NOW, ...over });
const chat = bedrockAdapter.endpoints['chat.completions']!;
const bodyOf = (call: UpstreamCall): Record<string, unknown> => JSON.parse(call.body as string) as Record<string, unknown>;

describe('bedrock chat.completions -> Converse request', () => {
  it('targets the regional runtime host with the model id encoded as one path segment', async () => {
    const call = await chat.request({ model: 'x', messages: [{ role: 'user', content: 'hi' }] }, ctx());
    expect(call.url).toBe('https://bedrock-runtime.eu-west-3.amazonaws.com/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse');
    expect(call.method).toBe('POST');
    const stream = await chat.request({ messages: [{ role: 'user', content: 'hi' }] }, ctx({ stream: true }));
    expect(stream.url).toMatch(/\/converse-stream$/);
    expect(stream.headers.accept).toBe('application/vnd.amazon.eventstream');
    expect(bedrockAdapter.baseUrl(ctx())).toBe('https://bedrock-runtime.eu-west-3.amazonaws.com');
  });

  it('signs with SigV4 for service bedrock in the region, at the call clock, with the session token', async () => {
    const call = await chat.request({ messages: [{ role: 'user', content: 'hi' }] }, ctx({ credentials: { ...creds, awsSessionToken: 'tok' } }));
    expect(call.headers['x-amz-date']).toBe('20261122T120000Z');
    expect(call.headers['x-amz-security-token']).toBe('tok');
    expect(call.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20261122\/eu-west-3\/bedrock\/aws4_request, SignedHeaders=host;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/,
    );
    expect(call.headers['content-type']).toBe('application/json');
    expect(await bedrockAdapter.authHeaders(ctx())).toEqual({});
  });

  it('encodes inference-profile ARNs as one segment', async () => {
    const arn = 'arn:aws:bedrock:eu-west-3:123456789012:inference-profile/eu.anthropic.claude-3-haiku-20240307-v1:0';
    const call = await chat.request({ messages: [{ role: 'user', content: 'hi' }] }, ctx({ model: arn }));
    expect(call.url).toBe(`https://bedrock-runtime.eu-west-3.amazonaws.com/model/${encodeURIComponent(arn)}/converse`);
    expect(call.url).toContain('inference-profile%2Feu.anthropic');
  });

  it('replaces the base with a custom host and still signs', async () => {
    const call = await chat.request({ messages: [{ role: 'user', content: 'hi' }] }, ctx({ customHost: 'https://vpce.example.com/bedrock' }));
    expect(call.url).toBe('https://vpce.example.com/bedrock/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse');
    expect(call.headers.authorization).toContain('/eu-west-3/bedrock/aws4_request');
  });

  it('refuses to build a call without AWS keys', async () => {
    await expect(chat.request({ messages: [] }, ctx({ credentials: {} }))).rejects.toMatchObject({ status: 400, code: 'missing_provider_credentials' });
  });

  it('maps system, images, tool calls, tool results and inference settings', async () => {
    const call = await chat.request(
      {
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'developer', content: [{ type: 'text', text: 'Use metric.' }] },
          { role: 'user', content: [{ type: 'text', text: 'Weather here?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0=' } }] },
          { role: 'assistant', content: null, tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_2', type: 'function', function: { name: 'weather', arguments: '{"city":"Lyon"}' } },
          ] },
          { role: 'tool', tool_call_id: 'call_1', content: '{"c":12}' },
          { role: 'tool', tool_call_id: 'call_2', content: '{"c":14}' },
          { role: 'user', content: 'Thanks' },
        ],
        max_tokens: 300,
        temperature: 0.2,
        top_p: 0.9,
        stop: 'END',
        top_k: 5,
        tools: [{ type: 'function', function: { name: 'weather', description: 'Weather by city', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
        tool_choice: 'required',
      },
      ctx(),
    );
    expect(bodyOf(call)).toEqual({
      system: [{ text: 'Be brief.' }, { text: 'Use metric.' }],
      messages: [
        { role: 'user', content: [{ text: 'Weather here?' }, { image: { format: 'png', source: { bytes: 'iVBORw0=' } } }] },
        { role: 'assistant', content: [
          { toolUse: { toolUseId: 'call_1', name: 'weather', input: { city: 'Paris' } } },
          { toolUse: { toolUseId: 'call_2', name: 'weather', input: { city: 'Lyon' } } },
        ] },
        // Both tool results and the next user text share one user turn (Converse alternates roles).
        { role: 'user', content: [
          { toolResult: { toolUseId: 'call_1', content: [{ text: '{"c":12}' }] } },
          { toolResult: { toolUseId: 'call_2', content: [{ text: '{"c":14}' }] } },
          { text: 'Thanks' },
        ] },
      ],
      inferenceConfig: { maxTokens: 300, temperature: 0.2, topP: 0.9, stopSequences: ['END'] },
      additionalModelRequestFields: { top_k: 5 },
      toolConfig: {
        tools: [{ toolSpec: { name: 'weather', description: 'Weather by city', inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } } } } } }],
        toolChoice: { any: {} },
      },
    });
  });

  it('rejects web image URLs (Converse takes bytes or S3) naming the field', async () => {
    await expect(
      chat.request({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }] }, ctx()),
    ).rejects.toMatchObject({ status: 400, param: 'messages[0].content[0].image_url' });
  });
});

describe('bedrock Converse answer -> OpenAI', () => {
  const answer = {
    output: { message: { role: 'assistant', content: [{ text: 'Checking.' }, { toolUse: { toolUseId: 'tu_1', name: 'weather', input: { city: 'Paris' } } }] } },
    stopReason: 'tool_use',
    usage: { inputTokens: 20, outputTokens: 9, totalTokens: 29, cacheReadInputTokens: 100, cacheWriteInputTokens: 5 },
  };

  it('builds a chat.completion with tool calls and usage (cache tokens in the prompt)', () => {
    const out = chat.response!(answer, ctx()) as Record<string, any>;
    expect(out.object).toBe('chat.completion');
    expect(out.created).toBe(NOW / 1000);
    expect(out.model).toBe('anthropic.claude-3-5-sonnet-20240620-v1:0');
    expect(out.choices[0]).toEqual({
      index: 0,
      message: { role: 'assistant', content: 'Checking.', refusal: null, tool_calls: [{ id: 'tu_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }] },
      logprobs: null,
      finish_reason: 'tool_calls',
    });
    expect(out.usage).toEqual({ prompt_tokens: 125, completion_tokens: 9, total_tokens: 134, prompt_tokens_details: { cached_tokens: 100 } });
    expect(chat.usage!(answer)).toEqual({ prompt: 125, completion: 9, total: 134, cachedPrompt: 100 });
  });

  it('maps stop reasons', () => {
    const reason = (stopReason: string): unknown => (chat.response!({ ...answer, stopReason, output: { message: { content: [{ text: 'x' }] } } }, ctx()) as any).choices[0].finish_reason;
    expect(reason('end_turn')).toBe('stop');
    expect(reason('stop_sequence')).toBe('stop');
    expect(reason('max_tokens')).toBe('length');
    expect(reason('guardrail_intervened')).toBe('content_filter');
  });

  it('turns Bedrock errors into the OpenAI error shape', () => {
    expect(chat.error!(400, { message: 'Malformed input request' }, ctx())).toEqual({
      error: { message: 'Malformed input request', type: 'invalid_request_error', param: null, code: null },
    });
    expect((chat.error!(429, { message: 'Too many requests' }, ctx()) as any).error.type).toBe('rate_limit_error');
  });
});

describe('bedrock ConverseStream -> OpenAI chunks', () => {
  const ev = (type: string, payload: unknown): Buffer => eventFrame({ ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' }, Buffer.from(JSON.stringify(payload)));

  it('translates text and a streamed tool call, split at every byte, with usage on the last chunk', () => {
    const bytes = Buffer.concat([
      ev('messageStart', { role: 'assistant' }),
      ev('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hé' } }),
      ev('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'llo ✓' } }),
      ev('contentBlockStop', { contentBlockIndex: 0 }),
      ev('contentBlockStart', { contentBlockIndex: 1, start: { toolUse: { toolUseId: 'tu_9', name: 'weather' } } }),
      ev('contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: '{"city":' } } }),
      ev('contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: '"Paris"}' } } }),
      ev('contentBlockStop', { contentBlockIndex: 1 }),
      ev('messageStop', { stopReason: 'tool_use' }),
      ev('metadata', { usage: { inputTokens: 12, outputTokens: 30, totalTokens: 42 }, metrics: { latencyMs: 5 } }),
    ]);
    const t = chat.stream!(ctx({ stream: true }));
    expect(t.usage).toBeNull();
    const text = pushBytewise(t, bytes) + t.end();
    const chunks = sseData(text);
    expect(chunks[chunks.length - 1]).toBe('[DONE]');
    const got = collectChunks(chunks);
    expect(got.role).toBe('assistant');
    expect(got.content).toBe('Héllo ✓');
    expect(got.tools).toEqual([{ id: 'tu_9', name: 'weather', arguments: '{"city":"Paris"}' }]);
    expect(got.finish).toBe('tool_calls');
    expect(got.usage).toEqual({ prompt_tokens: 12, completion_tokens: 30, total_tokens: 42 });
    expect(t.usage).toEqual({ prompt: 12, completion: 30, total: 42 });
    const ids = new Set(chunks.filter((c) => c !== '[DONE]').map((c) => (c as { id: string }).id));
    expect(ids.size).toBe(1);
  });

  it('reports a stream exception frame as an error event', () => {
    const t = chat.stream!(ctx({ stream: true }));
    const frame = eventFrame({ ':message-type': 'exception', ':exception-type': 'throttlingException', ':content-type': 'application/json' }, Buffer.from('{"message":"slow down"}'));
    const [err] = sseData(t.push(frame));
    expect(err).toEqual({ error: { message: 'slow down', type: 'rate_limit_error', param: null, code: 'throttlingException' } });
  });

  it('stops on a corrupt frame with an error event and still ends with [DONE]', () => {
    const t = chat.stream!(ctx({ stream: true }));
    const bad = eventFrame({ ':event-type': 'contentBlockDelta' }, Buffer.from('{"delta":{"text":"x"}}'), true);
    const out = t.push(bad);
    expect(sseData(out)[0]).toMatchObject({ error: { code: 'invalid_event_stream' } });
    expect(t.push(ev('contentBlockDelta', { delta: { text: 'ignored' } }))).toBe('');
    expect(t.end()).toMatch(/data: \[DONE\]\n\n$/);
  });

  it('flags a stream cut inside a message', () => {
    const t = chat.stream!(ctx({ stream: true }));
    t.push(ev('messageStart', { role: 'assistant' }).subarray(0, 10));
    expect(sseData(t.end())[0]).toMatchObject({ error: { code: 'incomplete_event_stream' } });
  });
});
