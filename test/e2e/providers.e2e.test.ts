// The official openai client through a running worker to three providers whose APIs are not
// OpenAI's (issue 6 item 8): Anthropic (Messages API), AWS Bedrock (Converse, SigV4, binary event
// streams) and Google Gemini (generateContent, SSE); JSON and streamed, tokens in the request log.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import OpenAI from 'openai';
import { startMockAnthropic } from '../support/mock-anthropic.ts';
import { startMockBedrock, type MockBedrock } from '../support/mock-bedrock.ts';
import type { MockProvider } from '../support/mock-provider.ts';
import { startMockVertex, type MockVertex } from '../support/mock-vertex.ts';
import { startStack, type Stack } from '../support/stack.ts';

const AWS = { accessKeyId: 'AKIAE2EEXAMPLE', secretAccessKey: 'e2e-secret-access-key-000000', region: 'eu-west-1' };
const GEMINI_KEY = 'gemini-e2e-key';

let stack: Stack;
let anthropic: MockProvider;
let bedrock: MockBedrock;
let google: MockVertex;
let appKey: string;

beforeAll(async () => {
  stack = await startStack({ workers: 1 });
  [anthropic, bedrock, google] = await Promise.all([startMockAnthropic(), startMockBedrock(AWS), startMockVertex({ apiKey: GEMINI_KEY })]);
  appKey = (await stack.createKey({ name: 'providers-e2e', workspace_id: 'ws-default', scopes: ['completions.write'] })).key;
});
afterAll(async () => {
  await Promise.all([anthropic?.close(), bedrock?.close(), google?.close()]);
  await stack?.close();
});

function client(providerKey: string, headers: Record<string, string>): OpenAI {
  return new OpenAI({ apiKey: providerKey, baseURL: `${stack.workers[0]!.url}/v1`, defaultHeaders: { 'x-gateway-api-key': appKey, ...headers }, maxRetries: 0 });
}

async function logged(traceId: string): Promise<{ provider: string; prompt_tokens: number; completion_tokens: number; is_stream: boolean }> {
  for (let i = 0; i < 200; i++) {
    const [row] = await stack.db.orm.em.getConnection().execute('select provider, prompt_tokens, completion_tokens, is_stream from request_log where trace_id = ?', [traceId]);
    if (row) return row as never;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no request_log row for ${traceId}`);
}

async function streamText(c: OpenAI, model: string, traceId: string): Promise<{ text: string; usage: unknown }> {
  const stream = await c.chat.completions.create(
    { model, messages: [{ role: 'user', content: 'Say hello' }], stream: true, stream_options: { include_usage: true } },
    { headers: { 'x-gateway-trace-id': traceId } },
  );
  let text = '';
  let usage: unknown = null;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? '';
    if (chunk.usage) usage = chunk.usage;
  }
  return { text, usage };
}

const cases = [
  {
    name: 'anthropic',
    model: 'claude-haiku-4-5',
    make: () => client('sk-ant-e2e', { 'x-gateway-provider': 'anthropic', 'x-gateway-custom-host': anthropic.baseUrl }),
    check: () => {
      const seen = anthropic.requests.at(-1)!;
      expect(seen.path).toBe('/v1/messages');
      expect(seen.headers['x-api-key']).toBe('sk-ant-e2e');
      expect(seen.headers['anthropic-version']).toBe('2023-06-01');
      expect(seen.json).toMatchObject({ model: 'claude-haiku-4-5', messages: [{ role: 'user' }] });
    },
  },
  {
    name: 'bedrock',
    model: 'anthropic.claude-3-haiku-20240307-v1:0',
    make: () =>
      client('unused', {
        'x-gateway-provider': 'bedrock',
        'x-gateway-custom-host': bedrock.url,
        'x-gateway-aws-access-key-id': AWS.accessKeyId,
        'x-gateway-aws-secret-access-key': AWS.secretAccessKey,
        'x-gateway-aws-region': AWS.region,
      }),
    // The mock verifies the SigV4 signature itself; a bad one is a 403.
    check: () => expect(bedrock.requests.at(-1)!.credentialScope).toContain(`${AWS.region}/bedrock/aws4_request`),
  },
  {
    name: 'google',
    model: 'gemini-2.5-flash',
    make: () => client(GEMINI_KEY, { 'x-gateway-provider': 'google', 'x-gateway-custom-host': google.url }),
    check: () => {
      const seen = google.requests.at(-1)!;
      expect(seen.headers['x-goog-api-key']).toBe(GEMINI_KEY);
      expect(seen.path).toMatch(/models\/gemini-2\.5-flash:(generateContent|streamGenerateContent)$/);
    },
  },
];

describe.each(cases)('openai client → worker → $name', ({ name, model, make, check }) => {
  it('completes a chat as OpenAI JSON with the provider’s token counts logged', async () => {
    const traceId = `e2e-${name}-json-${Date.now()}`;
    const { data, response } = await make().chat.completions.create({ model, messages: [{ role: 'user', content: 'Say hello' }] }, { headers: { 'x-gateway-trace-id': traceId } }).withResponse();
    expect(response.headers.get('x-gateway-provider')).toBe(name);
    expect(data.object).toBe('chat.completion');
    expect(data.choices[0]!.message.content).toBe('Hello world!');
    expect(data.usage!.prompt_tokens).toBeGreaterThan(0);
    check();
    const row = await logged(traceId);
    expect(row).toMatchObject({ provider: name, is_stream: false, prompt_tokens: data.usage!.prompt_tokens, completion_tokens: data.usage!.completion_tokens });
  });

  it('streams OpenAI chunks translated from the provider’s stream, usage included', async () => {
    const traceId = `e2e-${name}-stream-${Date.now()}`;
    const { text, usage } = await streamText(make(), model, traceId);
    expect(text).toBe('Hello world!');
    expect(usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) });
    check();
    const row = await logged(traceId);
    expect(row).toMatchObject({ provider: name, is_stream: true });
    expect(row.prompt_tokens).toBeGreaterThan(0);
  });
});
