// End to end as a user would: the official openai client pointed at a running worker.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import OpenAI from 'openai';
import { startMockProvider, type MockProvider } from '../support/mock-provider.ts';
import { startStack, type Stack } from '../support/stack.ts';

let stack: Stack;
let mock: MockProvider;
let client: OpenAI;
let keyId: string;

async function rowsFor(traceId: string, n = 1): Promise<any[]> {
  for (let i = 0; i < 200; i++) {
    const rows = await stack.db.orm.em.getConnection().execute('select * from request_log where trace_id = ?', [traceId]);
    if (rows.length >= n) return rows;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no request_log rows for ${traceId}`);
}

beforeAll(async () => {
  stack = await startStack({ workers: 1 });
  mock = await startMockProvider();
  // The app's key is created on the control plane, through its REST API.
  const created = await stack.createKey({ name: 'e2e-app', workspace_id: 'ws-default', scopes: ['completions.write'] });
  keyId = created.id;
  client = new OpenAI({
    apiKey: 'sk-provider-key',
    baseURL: `${stack.workers[0]!.url}/v1`,
    defaultHeaders: { 'x-gateway-api-key': created.key, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': mock.baseUrl },
    maxRetries: 0,
  });
});
afterAll(async () => {
  await mock?.close();
  await stack?.close();
});

describe('openai client → worker → provider, usage → control plane', () => {
  it('completes a chat and the request log has the provider tokens', async () => {
    const { data, response } = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }] })
      .withResponse();
    expect(data.choices[0]!.message.content).toBe('Hello world!');
    expect(data.usage).toEqual({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
    const traceId = response.headers.get('x-gateway-trace-id')!;
    const [row] = await rowsFor(traceId);
    expect(row).toMatchObject({
      api_key_id: keyId, workspace_id: stack.workspaceId, organisation_id: stack.organisationId, provider: 'openai',
      model: 'gpt-4o-mini', status: 200, prompt_tokens: 11, completion_tokens: 7, total_tokens: 18, is_stream: false,
    });
  });

  it('streams a chat and the request log has the tokens of the final usage chunk', async () => {
    mock.program({ chunks: ['One', ' two', ' three'], usage: { prompt_tokens: 20, completion_tokens: 3 } });
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Count' }], stream: true })
      .withResponse();
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('One two three');
    const [row] = await rowsFor(response.headers.get('x-gateway-trace-id')!);
    expect(row).toMatchObject({ is_stream: true, prompt_tokens: 20, completion_tokens: 3, total_tokens: 23, status: 200 });
  });

  it('surfaces gateway errors as OpenAI errors in the client', async () => {
    const bad = new OpenAI({ apiKey: 'sk', baseURL: `${stack.workers[0]!.url}/v1`, defaultHeaders: { 'x-gateway-api-key': 'Q'.repeat(48), 'x-gateway-provider': 'openai' }, maxRetries: 0 });
    await expect(bad.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 401, code: 'invalid_api_key' });
  });
});
