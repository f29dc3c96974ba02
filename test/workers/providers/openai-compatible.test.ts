// The OpenAI adapter and the OpenAI-compatible provider table: the exact request each provider
// receives and the exact answer the app receives, JSON and streamed.
import { describe, it, expect, beforeAll, afterAll, beforeEach } from 'vitest';
import { startMockProvider, type MockProvider } from '../../support/mock-provider.ts';
import { COMPATIBLE_PROVIDERS } from '../../../workers/providers/openai-compatible/table.ts';
import { findProvider } from '../../../workers/providers/registry.ts';
import type { CallContext } from '../../../workers/providers/contract.ts';
import { GATEWAY_KEY, startHarness, type Harness } from '../harness.ts';

let mock: MockProvider;
let gw: Harness;

beforeAll(async () => {
  mock = await startMockProvider();
  gw = await startHarness();
});
afterAll(async () => {
  await gw?.close();
  await mock?.close();
});
beforeEach(() => {
  mock.reset();
  gw.records.length = 0;
});

const ctx = (apiKey?: string): CallContext => ({ provider: 'x', credentials: apiKey ? { apiKey } : {}, model: 'm', stream: false, upstream: async () => { throw new Error('unused'); }, now: Date.now });

describe('the table', () => {
  it('holds at least 30 providers, ids unique and spelled as the reference gateway does, each with an https default base (local servers aside)', () => {
    expect(COMPATIBLE_PROVIDERS.length).toBeGreaterThanOrEqual(30);
    const ids = COMPATIBLE_PROVIDERS.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ['groq', 'together-ai', 'fireworks-ai', 'deepseek', 'openrouter', 'perplexity-ai', 'x-ai', 'ollama', 'vllm', 'lm-studio', 'deepinfra', 'cerebras', 'sambanova', 'nebius', 'novita-ai', 'nvidia-nim', 'hyperbolic', 'lambda', 'ai21', 'jina', 'voyage', 'huggingface', 'dashscope', 'moonshot', 'zhipu', 'siliconflow', 'upstage']) {
      expect(findProvider(id)?.name).toBe(id);
    }
    for (const p of COMPATIBLE_PROVIDERS) {
      expect(p.baseUrl).toMatch(p.keyOptional ? /^http:\/\/localhost:\d+\/v1$/ : /^https:\/\/[a-z0-9.-]+(\/[\w./-]*)?[^/]$/);
    }
    expect(findProvider('hugging-face')?.name).toBe('huggingface');
    expect(findProvider('OPEN-AI')?.name).toBe('openai');
  });

  it('default bases and auth headers are exact', () => {
    expect(findProvider('openai')!.baseUrl(ctx())).toBe('https://api.openai.com/v1');
    expect(findProvider('groq')!.baseUrl(ctx())).toBe('https://api.groq.com/openai/v1');
    expect(findProvider('together-ai')!.baseUrl(ctx())).toBe('https://api.together.xyz/v1');
    expect(findProvider('fireworks-ai')!.baseUrl(ctx())).toBe('https://api.fireworks.ai/inference/v1');
    expect(findProvider('openrouter')!.baseUrl(ctx())).toBe('https://openrouter.ai/api/v1');
    expect(findProvider('groq')!.authHeaders(ctx('gsk-1'))).toEqual({ authorization: 'Bearer gsk-1' });
    expect(findProvider('ollama')!.authHeaders(ctx())).toEqual({});
  });
});

describe('through the worker to the mock (custom host replaces each base)', () => {
  const providers = ['openai', 'groq', 'together-ai', 'deepseek', 'x-ai', 'jina', 'nvidia-nim'];
  for (const provider of providers) {
    it(`${provider}: JSON`, async () => {
      const body = JSON.stringify({ model: 'm-1', messages: [{ role: 'user', content: 'hi' }], provider_specific: true });
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': provider, authorization: 'Bearer pk-1', 'x-gateway-custom-host': mock.baseUrl, 'content-type': 'application/json', accept: 'application/json' },
        body,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-gateway-provider')).toBe(provider);
      const json = (await res.json()) as any;
      expect(json).toMatchObject({ object: 'chat.completion', model: 'm-1', choices: [{ message: { content: 'Hello world!' } }], usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } });
      const got = mock.requests[0]!;
      expect(`${got.method} ${got.path}`).toBe('POST /v1/chat/completions');
      expect(got.body).toBe(body);
      expect(got.headers).toMatchObject({ authorization: 'Bearer pk-1', 'content-type': 'application/json', accept: 'application/json', 'accept-encoding': 'identity' });
      expect(Object.keys(got.headers).filter((h) => h.startsWith('x-gateway'))).toEqual([]);
      const [rec] = await gw.waitForRecords(1);
      expect(rec).toMatchObject({ provider, model: 'm-1', total_tokens: 18 });
    });
  }

  it('streamed: the chunks the app receives are the provider chunks, usage chunk hidden, tokens recorded', async () => {
    mock.program({ chunks: ['A', 'B'], usage: { prompt_tokens: 2, completion_tokens: 2 } });
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': 'groq', authorization: 'Bearer gsk', 'x-gateway-custom-host': mock.baseUrl, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'llama', messages: [], stream: true }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = (await res.text()).split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.slice(6)));
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? null)).toEqual(['', 'A', 'B', null]);
    expect(chunks.every((c) => c.choices.length === 1)).toBe(true);
    expect(mock.requests[0]!.json).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const [rec] = await gw.waitForRecords(1);
    expect(rec).toMatchObject({ provider: 'groq', is_stream: true, prompt_tokens: 2, completion_tokens: 2, total_tokens: 4 });
  });
});
